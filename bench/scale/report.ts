// The scale page (bench/results/scale.md) from one run's results file: the run, then each figure with its
// scenario, a chart (backlog on the x axis, a line per shape, BullMQ beside where it was measured) and its
// table; the reads as median and max of their repetitions; the Cluster's shards apart.
import { fmt } from '../lib.js';
import { BULLMQ_SHAPE } from './bullmq.js';
import { READS, STREAM_LEAD_MS, STREAM_RATE } from './checkpoint.js';
import { BATCH, BATCHES_IN_FLIGHT, SINGLE_IN_FLIGHT, TOPICS } from './jobs.js';
import { lineChart } from './line-chart.js';
import { CANCEL_TOPIC, PURGE_LIMIT } from './operations.js';
import type { ScalePoint, ScaleRecord } from './record.js';

const MiB = 2 ** 20;

export interface ScaleFigure {
  id: string;
  title: string;
  unit: string;
  digits: number;
  /** The value at a point (`zero`: the same shape at backlog 0); undefined where not measured. */
  value: (p: ScalePoint, zero: ScalePoint | undefined) => number | undefined;
  /** For repeated reads: the slowest repetition, shown beside the median. */
  max?: (p: ScalePoint) => number | undefined;
  /** More about the value, shown after it in the table. */
  detail?: (p: ScalePoint) => string | undefined;
  scenario: string;
}

const metric =
  (name: string, scale = 1) =>
  (p: ScalePoint) =>
    p.metrics[name] === undefined ? undefined : p.metrics[name] / scale;

export function scaleFigures(record: ScaleRecord): ScaleFigure[] {
  const c = record.info.counts;
  const reads: ScaleFigure[] = READS.filter((r) => !record.info.missingReads.includes(r.id)).map((r) => ({
    id: `read-${r.id}`,
    title: `Read: ${r.label}`,
    unit: 'ms',
    digits: 1,
    value: metric(`${r.id}Median`),
    max: metric(`${r.id}Max`),
    scenario:
      `\`GET ${r.path({ id: '{id}', bizKey: '{bizKey}' }, 0)!.replace(/from=0&to=\d+/, 'from={today}&to={today + 30 d}')}\` ` +
      `over one kept-alive connection, ${c.reads} times in a row at each backlog (a job pushed by the run for the id and bizKey): median (max). ` +
      readsWarmth(record),
  }));
  return [
    {
      id: 'push-batch',
      title: 'Push rate: batches of 1000 over HTTP',
      unit: 'jobs/s',
      digits: 0,
      value: metric('pushBatch'),
      scenario: `${fmt(c.batchJobs)} jobs in \`POST /v1/jobs/batch\` of ${fmt(BATCH)}, ${BATCHES_IN_FLIGHT} in flight, after the reads and the stream; BullMQ: \`addBulk\` of ${fmt(BATCH)}, ${BATCHES_IN_FLIGHT} in flight.`,
    },
    {
      id: 'push-single',
      title: 'Push rate: single pushes over HTTP, 100 in flight',
      unit: 'jobs/s',
      digits: 0,
      value: metric('pushSingle'),
      scenario: `${fmt(c.singleJobs)} jobs, one \`POST /v1/jobs\` each (node:http, keep-alive), ${SINGLE_IN_FLIGHT} in flight; BullMQ: \`queue.add\`, ${SINGLE_IN_FLIGHT} in flight.`,
    },
    {
      id: 'late',
      title: 'Lateness of a 1k due/s stream beside the backlog: p99',
      unit: 'ms',
      digits: 0,
      value: metric('lateP99'),
      scenario: `The SDK pushes ${fmt(STREAM_RATE)} jobs/s of topic \`stream\` for ${c.streamS} s, each due ${STREAM_LEAD_MS} ms after its push; its Worker (concurrency 100) takes them. Lateness = received − due.`,
    },
    {
      id: 'used-memory',
      title: 'Redis used_memory',
      unit: 'MiB',
      digits: 0,
      value: metric('usedMemory', MiB),
      scenario: 'INFO memory of every Redis node of the shape (summed over the Cluster), BullMQ on its own Redis.',
    },
    {
      id: 'bytes-per-job',
      title: 'Redis used_memory per pending job',
      unit: 'bytes/job',
      digits: 0,
      value: (p, zero) =>
        p.backlog > 0 && p.metrics['usedMemory'] !== undefined && zero?.metrics['usedMemory'] !== undefined
          ? (p.metrics['usedMemory'] - zero.metrics['usedMemory']) / p.backlog
          : undefined,
      scenario: `(used_memory at the backlog − at 0) ÷ the backlog. A job's body is ${fmt(100)} bytes; a journal shape keeps jobs due beyond its 1 h horizon out of Redis.`,
    },
    {
      id: 'redis-cpu',
      title: 'Redis CPU per job loaded',
      unit: 'µs/job',
      digits: 1,
      value: metric('redisCpuUs'),
      scenario: `Redis's CPU (INFO cpu, summed over the Cluster) while the jobs since the previous backlog were loaded in batches of ${fmt(BATCH)}, ÷ those jobs.`,
    },
    {
      id: 'rss-redis',
      title: 'Redis RSS',
      unit: 'MiB',
      digits: 0,
      value: metric('rssRedis', MiB),
      scenario: 'VmRSS of the Redis process(es) (/proc), summed over the Cluster.',
    },
    {
      id: 'rss-delayq',
      title: 'delayq server RSS',
      unit: 'MiB',
      digits: 0,
      value: metric('rssDelayq', MiB),
      scenario: 'VmRSS of the delayq server process (/proc), after the fill (before the reads and pushes).',
    },
    {
      id: 'sqlite',
      title: 'SQLite file + WAL',
      unit: 'MiB',
      digits: 0,
      value: metric('sqliteBytes', MiB),
      scenario: "Size of the embedded store's database file and its WAL on disk.",
    },
    ...reads,
    {
      id: 'restart',
      title: 'Restart: until /ready answers 200',
      unit: 's',
      digits: 2,
      value: metric('restartMs', 1000),
      scenario:
        "The server stopped (SIGTERM) and started again on the same data, after the backlog's other measurements: from the spawn until `GET /ready` answers 200.",
    },
    {
      id: 'restore',
      title: 'Restore of the journal after Redis is wiped',
      unit: 's',
      digits: 2,
      value: metric('restoreMs', 1000),
      detail: (p) =>
        p.metrics['restored'] === undefined
          ? undefined
          : `${fmt(p.metrics['restored'])} restored of ${fmt(p.metrics['restoreScanned'] ?? Number.NaN)} scanned`,
      scenario:
        "FLUSHALL of the shape's Redis, then the server's own restore (`restoreMode: auto`): its `durationMs` as `GET /v1/journal` " +
        'reports it, with the unfinished journal rows it scanned and the jobs it pushed back (those due within the horizon).',
    },
  ];
}

const backlogLabel = (n: number) =>
  n >= 1e6 ? `${+(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n);

interface Rendered {
  markdown: string;
  charts: { name: string; svg: string }[];
}

/** The page and its charts; `chartPrefix` is the charts' file name start (beside the page). */
export function renderScale(
  record: ScaleRecord,
  chartPrefix: string,
  benchmarksLink = '../../BENCHMARKS.md',
): Rendered {
  const { info, points } = record;
  const backlogs = [...new Set(points.map((p) => p.backlog))].sort((a, b) => a - b);
  const shapes = [...new Set(points.map((p) => p.shape))].sort(
    (a, b) => Number(a === BULLMQ_SHAPE) - Number(b === BULLMQ_SHAPE),
  );
  const at = (shape: string, backlog: number) => points.find((p) => p.shape === shape && p.backlog === backlog);
  const charts: Rendered['charts'] = [];
  const sections: string[] = [];
  for (const f of scaleFigures(record)) {
    const rows = shapes
      .map((shape) => {
        const cells = backlogs.map((b) => {
          const p = at(shape, b);
          const v = p && f.value(p, at(shape, 0));
          const max = p && f.max?.(p);
          const detail = p && f.detail?.(p);
          return v === undefined ? undefined : { v, max, detail };
        });
        return { shape, cells };
      })
      .filter((r) => r.cells.some((x) => x !== undefined));
    if (rows.length === 0) continue;
    const name = `${chartPrefix}-${f.id}.svg`;
    charts.push({
      name,
      svg: lineChart(
        f.title,
        f.unit,
        backlogs.map(backlogLabel),
        rows.map((r) => ({ name: r.shape, values: r.cells.map((x) => x?.v) })),
      ),
    });
    const table = [
      `| shape | ${backlogs.map(backlogLabel).join(' | ')} |`,
      `|${[0, ...backlogs].map(() => ' --- ').join('|')}|`,
      ...rows.map(
        (r) =>
          `| ${r.shape} | ${r.cells
            .map((x) => {
              if (x === undefined) return '–';
              const max = x.max === undefined ? '' : ` (${fmt(x.max, f.digits)})`;
              return `${fmt(x.v, f.digits)}${max}${x.detail ? `; ${x.detail}` : ''}`;
            })
            .join(' | ')} |`,
      ),
    ];
    sections.push(`## ${f.title}, ${f.unit}\n\n${f.scenario}\n\n![${f.title}](${name})\n\n${table.join('\n')}\n`);
  }
  const shards = shardTable(points, backlogs) + operationsTable(points, shapes);
  const m = info.machine;
  const span = info.finishedAt
    ? `${info.startedAt.replace('T', ' ').slice(0, 16)} to ${info.finishedAt.replace('T', ' ').slice(0, 16)} UTC (${((Date.parse(info.finishedAt) - Date.parse(info.startedAt)) / 60_000).toFixed(1)} min)`
    : `${info.startedAt.replace('T', ' ').slice(0, 16)} UTC; the run stopped before its end (what it measured was kept)`;
  const failed = info.failures.length
    ? `\n> **${info.failures.length} measurement(s) failed** (their cells are empty):\n${info.failures.map((x) => `> - ${x}`).join('\n')}\n`
    : '';
  const markdown = `# delayq benchmarks at scale: 0 → ${backlogLabel(info.max)} jobs per shape
${failed}
Generated from one run's results by \`npm run bench:scale\`; do not edit by hand. Render it again without measuring:
\`npm run bench:scale -- --render-only\`. The side-by-side figures of an empty system: [BENCHMARKS.md](${benchmarksLink}).

- When: ${span}. Command: \`${info.command}\`.
- Commit: ${m.commit}. Machine: ${m.cores} × ${m.cpu}, ${m.ramGiB} GiB RAM, Node ${m.node}.
- Versions: ${Object.entries(m.versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}.
- Load average (1 / 5 / 15 min): ${info.loadBefore.join(' / ')} before${info.loadAfter.length ? `, ${info.loadAfter.join(' / ')} after` : ''}; at each backlog in the table below.
- Jobs: 100-byte JSON bodies, ${TOPICS} topics (\`t0\`…\`t7\`, round robin), a bizKey of its own each, due between 10 min and 30 days
  after the start, spread evenly; loaded over HTTP in batches of ${fmt(BATCH)} (${BATCHES_IN_FLIGHT} in flight). None comes due during
  the run. Each shape starts empty, its server in its own process (as \`delayq serve\` runs it) with its own Redis;
  at each backlog: memory, the reads, the stream, the push rates (their jobs join the backlog), a restart, a restore;
  at the largest, a bulk cancel and a purge.
- Shapes: ${info.shapes.join(', ')}.${info.missingReads.length ? ` Not offered by this build (404): ${info.missingReads.join(', ')}.` : ''}${mergedLines(info.merged)}

${loadTable(points, backlogs, shapes)}

${sections.join('\n')}${shards}`;
  return { markdown, charts };
}

function loadTable(points: readonly ScalePoint[], backlogs: readonly number[], shapes: readonly string[]): string {
  const at = (shape: string, b: number) => points.find((p) => p.shape === shape && p.backlog === b)?.metrics['load1'];
  return [
    `| load average (1 min) when measured | ${backlogs.map(backlogLabel).join(' | ')} |`,
    `|${[0, ...backlogs].map(() => ' --- ').join('|')}|`,
    ...shapes.map(
      (s) => `| ${s} | ${backlogs.map((b) => (at(s, b) === undefined ? '–' : fmt(at(s, b)!, 2))).join(' | ')} |`,
    ),
  ].join('\n');
}

/** The bulk cancel and the purge at each shape's largest backlog. */
function operationsTable(points: readonly ScalePoint[], shapes: readonly string[]): string {
  const rows = shapes.flatMap((shape) => {
    const p = points.find((x) => x.shape === shape && x.metrics['cancelled'] !== undefined);
    if (!p) return [];
    const v = (k: string, d = 0) => fmt(p.metrics[k] ?? Number.NaN, d);
    return [
      `| ${shape} | ${backlogLabel(p.backlog)} | ${v('cancelled')} | ${v('cancelRate')} | ${v('cancelStreamP99')} / ${v('cancelStreamMax')} | ` +
        `${v('purged')} | ${v('purgeRate')} | ${v('purgeSlowestHealthMs', 1)} |`,
    ];
  });
  if (rows.length === 0) return '';
  return `
## Operations at the largest backlog

A bulk cancel of one topic's jobs (\`${CANCEL_TOPIC}\`: an eighth of the backlog) through \`POST /v1/jobs/bulk\`, slice after
slice until its cursor ends, while the SDK pushes a 1k due/s stream (each job due 1 s after its push) that its Worker
takes: the stream's lateness over the jobs due during the cancel. Then \`POST /v1/purge\` of every job ended before it
began (the cancelled ones and the stream's), ${fmt(PURGE_LIMIT)} a call until none is left, while \`GET /health\` is asked
every 5 ms: its slowest answer is the longest the server's event loop stood still, as a client sees it.

| shape | backlog | cancelled | cancelled/s | stream p99 / max during, ms | purged | purged/s | slowest /health during the purge, ms |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
}

/** The Cluster's shards: used_memory, keys and Redis CPU per job filled, by backlog. */
function shardTable(points: readonly ScalePoint[], backlogs: readonly number[]): string {
  const cluster = points.filter((p) => p.metrics['shard0Memory'] !== undefined);
  if (cluster.length === 0) return '';
  const shape = cluster[0]!.shape;
  const rows: string[] = [];
  for (let i = 0; cluster.some((p) => p.metrics[`shard${i}Memory`] !== undefined); i++) {
    const cell = (b: number) => {
      const p = cluster.find((x) => x.backlog === b)?.metrics;
      if (!p || p[`shard${i}Memory`] === undefined) return '–';
      const cpu = p[`shard${i}CpuUs`];
      return `${fmt(p[`shard${i}Memory`]! / MiB)} MiB, ${fmt(p[`shard${i}Keys`] ?? Number.NaN)} keys${cpu === undefined ? '' : `, ${fmt(cpu, 1)} µs/job`}`;
    };
    rows.push(`| shard ${i} | ${backlogs.map(cell).join(' | ')} |`);
  }
  return `
## ${shape}: each shard

used_memory and key count (DBSIZE) of each master at the backlog; its Redis CPU (INFO cpu) per job while the jobs
since the previous backlog were loaded.

| shard | ${backlogs.map(backlogLabel).join(' | ')} |
|${[0, ...backlogs].map(() => ' --- ').join('|')}|
${rows.join('\n')}
`;
}

/**
 * Whether each row's reads came warm: the server restarts at every backlog, so reads taken at once include the
 * path's first runs in a fresh process (tens of ms for a page); later runs read each path unrecorded first.
 */
function readsWarmth(record: ScaleRecord): string {
  const warm = (n: number | undefined) =>
    n ? `after ${n} unrecorded read(s) of the path` : 'right after the server restarted (its first runs of the path)';
  const merged = (record.info.merged ?? []).filter((m) => (m.warmReads ?? 0) !== (record.info.counts.warmReads ?? 0));
  const others = merged.map((m) => `${m.shapes.join(', ')}: ${warm(m.warmReads)}`);
  return `Read ${warm(record.info.counts.warmReads)}${others.length ? ` (${others.join('; ')})` : ''}.`;
}

/** The runs merged in (`--merge`): their shapes' figures are theirs, not the first run's. */
function mergedLines(merged: ScaleRecord['info']['merged']): string {
  return (merged ?? [])
    .map(
      (m) =>
        `\n- Measured apart and merged into this run: ${m.shapes.join(', ')}, from ${m.startedAt.replace('T', ' ').slice(0, 16)} ` +
        (m.finishedAt
          ? `to ${m.finishedAt.replace('T', ' ').slice(0, 16)} UTC on ${m.commit}${m.cpu ? `, ${m.cpu}` : ''} (load ${m.loadBefore.join(' / ')} before, ${m.loadAfter.join(' / ')} after)`
          : `UTC on ${m.commit} (load ${m.loadBefore.join(' / ')} before), a run stopped before its end`) +
        `, by \`${m.command}\`.`,
    )
    .join('');
}
