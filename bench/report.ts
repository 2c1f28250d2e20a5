// Turns the collected numbers into BENCHMARKS.md (tables, goals, where the time goes) and the SVG chart.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { apiSection } from './api-report.js';
import { durableSection } from './durable-report.js';
import { fmt } from './lib.js';
import { dueHistogramSection } from './due-histogram-speed.js';
import { scheduleFiresSection } from './schedule-fires.js';
import { bulkCancelSection } from './bulk-cancel.js';
import { REFERENCE, table, type Results } from './results-table.js';
import type { LatenessResult } from './scenarios.js';
import { latenessChart, type Panel } from './svg-chart.js';

export interface RunInfo {
  quick: boolean;
  runs: number;
  pending: number;
  startedAt: Date;
  finishedAt: Date;
  machine: string;
  loadBefore: number[];
  loadAfter: number[];
  command: string;
  mode: Record<string, number>;
  notes: Map<string, string>;
  failures: string[];
  chartFile: string;
}

function readJson(path: string): { version?: string } {
  try {
    return JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version?: string };
  } catch {
    return { version: '(not installed)' };
  }
}

function versions(): string {
  const sh = (cmd: string) => {
    try {
      return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  };
  return [
    `delayq ${readJson('../package.json').version}`,
    `BullMQ ${readJson('../node_modules/bullmq/package.json').version}`,
    `ioredis ${readJson('../node_modules/ioredis/package.json').version}`,
    `jackd ${readJson('../node_modules/jackd/package.json').version}`,
    sh('beanstalkd -v'),
    `Redis ${sh('redis-server --version').split(' ')[2]?.replace('v=', '') ?? '?'}`,
  ].join(', ');
}

/** The run whose p99 is the median of the runs, so the chart shows a typical run, not the best. */
function typical(runs: readonly LatenessResult[]): LatenessResult | undefined {
  const sorted = [...runs].sort((a, b) => a.p99 - b.p99);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');

interface Goal {
  goal: string;
  measured: string;
  met: boolean | undefined;
}

function goals(results: Results): Goal[] {
  const m = (s: string, sys: string, metric: string) => results.median(s, sys, metric);
  const ratio = (s: string, sys: string, metric: string) => {
    const r = results.ratio(s, sys, metric);
    return r.length ? r.sort((a, b) => a - b)[Math.floor((r.length - 1) / 2)]! : Number.NaN;
  };
  const check = (v: number, ok: boolean): boolean | undefined => (Number.isFinite(v) ? ok : undefined);
  const enqueueRatio = ratio('enqueue', 'BullMQ · hz 10', 'rate');
  const bytes = m('memory', REFERENCE, 'bytes');
  const beyond = results.systems('memory').find((s) => s.includes('beyond'));
  const beyondBytes = beyond ? m('memory', beyond, 'bytes') : Number.NaN;
  const p99 = m('late1k', REFERENCE, 'p99');
  const max = m('late1k', REFERENCE, 'max');
  const p99at5k = m('late5k', REFERENCE, 'p99');
  const burstRatio = ratio('burst', 'BullMQ · hz 10', 'rate');
  const pendingP99 = m('pending', REFERENCE, 'p99');
  return [
    {
      goal: 'enqueue, 100 in flight: ≥ 3× BullMQ on the same Redis',
      measured: `${fmt(enqueueRatio, 2)}×`,
      met: check(enqueueRatio, enqueueRatio >= 3),
    },
    { goal: 'memory per pending job ≤ 300 B in Redis', measured: `${fmt(bytes)} B`, met: check(bytes, bytes <= 300) },
    {
      goal: '0 B in Redis for jobs beyond the load horizon',
      measured: `${fmt(beyondBytes, 1)} B`,
      met: check(beyondBytes, beyondBytes < 5),
    },
    {
      goal: 'lateness at 1k due/s: p99 ≤ 5 ms, max ≤ 20 ms',
      measured: `p99 ${fmt(p99)} ms, max ${fmt(max)} ms`,
      met: check(p99, p99 <= 5 && max <= 20),
    },
    {
      goal: 'lateness at 5k due/s: p99 ≤ 10 ms',
      measured: `p99 ${fmt(p99at5k)} ms`,
      met: check(p99at5k, p99at5k <= 10),
    },
    {
      goal: 'burst of due jobs drained ≥ 3× BullMQ',
      measured: `${fmt(burstRatio, 2)}×`,
      met: check(burstRatio, burstRatio >= 3),
    },
    {
      goal: '1k/s lateness unchanged with many jobs pending',
      measured: `p99 ${fmt(pendingP99)} ms (without: ${fmt(p99)} ms)`,
      met: check(pendingP99 + p99, pendingP99 <= Math.max(5, p99 * 1.5)), // needs both in the same run
    },
  ];
}

export function report(
  results: Results,
  latenessRuns: Map<string, LatenessResult[]>,
  info: RunInfo,
): { markdown: string; svg: string } {
  const panels: Panel[] = [
    ['late1k', 'steady 1k due/s'],
    ['late5k', 'steady 5k due/s'],
    ['pending', `1k due/s with ${fmt(info.pending)} pending`],
  ].map(([scenario, title]) => ({
    title: title!,
    series: results.systems(scenario!).map((system) => ({
      name: system,
      samples: typical(latenessRuns.get(`${scenario}|${system}`) ?? [])?.samples ?? [],
    })),
  }));
  const svg = latenessChart(panels);
  const lat = [
    { metric: 'p50', header: 'p50', unit: 'ms' },
    { metric: 'p99', header: 'p99', unit: 'ms' },
    { metric: 'max', header: 'max', unit: 'ms' },
    { metric: 'missing', header: 'not delivered' },
    { metric: 'producerLag', header: 'producer behind schedule (max)', unit: 'ms' },
  ];
  const where = [
    { metric: 'clientUs', header: 'benchmark-process CPU µs/job', digits: 1 },
    { metric: 'serverUs', header: 'server CPU µs/job', digits: 1 },
    { metric: 'cmds', header: 'Redis commands/job', digits: 2 },
  ];
  const duration = ((info.finishedAt.getTime() - info.startedAt.getTime()) / 60_000).toFixed(1);
  const goalRows = goals(results)
    .map(
      (g) => `| ${g.goal} | ${g.measured} | ${g.met === undefined ? 'not measured' : g.met ? 'met' : '**not met**'} |`,
    )
    .join('\n');
  const noteRows = [...info.notes].map(([system, note]) => `- **${system}**: ${note}`).join('\n');
  const profiling = new URL('./profiling-notes.md', import.meta.url);
  const failed = info.failures.length
    ? `\n> **${info.failures.length} measurement(s) failed** (their rows are missing):\n${info.failures.map((f) => `> - ${f}`).join('\n')}\n`
    : '';
  const quickWarning = info.quick
    ? '\n> **Quick mode** (CI smoke run): small counts and one run; the numbers are noisy and not comparable to the full run.\n'
    : '';

  const markdown = `# delayq benchmarks: side by side with BullMQ and beanstalkd
${quickWarning}${failed}
Written by \`${info.command}\` on ${info.startedAt.toISOString()} (took ${duration} min). Do not edit by hand:
re-run the command; hand-written findings live in \`bench/profiling-notes.md\` and are included below.

> **In-process or over the API.** Every table of this file down to "Over the API" is **in-process**: the
> benchmark calls \`DelayqService\` directly, as an application embedding delayq does. Figures **over the API**
> (the server in its own process, driven over HTTP by the SDK and by a plain-HTTP consumer, next to BullMQ and
> beanstalkd in the same run) are in the sections "Over the API" and "delayq over HTTP, per request".

- Machine: ${info.machine}. Load average (1/5/15 min) before: ${load(info.loadBefore)}, after: ${load(info.loadAfter)}.
  The machine is shared; a load above ~1.5 before the run means the numbers are pessimistic.
- Versions: ${versions()}.
- Every system in the same run, on the same machine, with the same 100-byte bodies, 100 pushes in flight and
  consumers of concurrency 100. ${info.runs} run(s) per scenario: median (min–max). Ratios are taken within each run
  (${REFERENCE} ÷ the other system), then the median of those. Redis-based systems share one dedicated
  redis-server started by the script (flushed between systems, never the shared 6379); beanstalkd is
  started fresh for every measurement.

## Goals (from issue 5), for ${REFERENCE}

| goal | measured | |
| --- | --- | --- |
${goalRows}

## Enqueue delayed jobs, 100 in flight (${fmt(info.mode['enqueue']!)} jobs, due in 30 min)

${table(results, 'enqueue', [{ metric: 'rate', header: 'jobs/s' }], 'rate')}
Bulk API, 1000 jobs per call (${fmt(info.mode['bulk']!)} jobs): delayq \`pushBatch\`, BullMQ \`addBulk\` (beanstalkd has none).

${table(results, 'bulk', [{ metric: 'rate', header: 'jobs/s' }], 'rate')}
## Memory per pending job

Redis \`used_memory\` growth ÷ jobs for the Redis-based systems, the server's RSS growth for beanstalkd, and
the SQLite file growth (disk, not RAM) for the embedded store. Jobs with 100-byte bodies, as pushed above.

${table(results, 'memory', [{ metric: 'bytes', header: 'bytes/job', digits: 0 }], 'bytes')}
## Lateness (delivery − due) at a steady rate

A producer pushes jobs at the given rate, each due ${info.mode['leadMs']} ms after it is pushed; one consumer
(concurrency 100) takes them, and lateness is the instant the consumer received the job minus the instant it
was due. beanstalkd only takes whole-second delays: its lateness is measured against the whole second it
rounded up to (asked-for due time + up to 1 s), as the peers' table in issue 5 does. "Producer behind
schedule" is how late the steady producer ran at worst; when it nears the ${info.mode['leadMs']} ms lead, jobs
were pushed already due and the system could not absorb the rate.

![lateness distributions](${info.chartFile})

**1k due/s** for ${info.mode['lateS']} s:

${table(results, 'late1k', lat, 'p99')}
**5k due/s** for ${info.mode['late5kS']} s:

${table(results, 'late5k', lat, 'p99')}
## Burst: ${fmt(info.mode['burst']!)} jobs due at the same instant, drained by one consumer process

Jobs pushed beforehand (bulk where there is one), all due at one instant (beanstalkd: the next whole seconds),
then one consumer with concurrency 100. Rate = jobs ÷ (last delivery − first due).

${table(
  results,
  'burst',
  [
    { metric: 'rate', header: 'jobs/s' },
    { metric: 'lastLate', header: 'last job late by', unit: 'ms' },
    { metric: 'missing', header: 'not delivered' },
    { metric: 'overrun', header: 'pushing overran the lead by', unit: 'ms' },
  ],
  'rate',
)}
## 1k due/s lateness with ${fmt(info.pending)} other jobs pending

The system is first filled with ${fmt(info.pending)} jobs due in 30 min (inside delayq's load horizon, so they
are all in Redis), then the 1k/s scenario runs ${info.runs} time(s). ${info.quick ? '' : tenMillionNote(info.pending)}

${table(results, 'pending', [...lat, { metric: 'preloadS', header: 'fill time', digits: 1, unit: 's' }, { metric: 'bytes', header: 'bytes/pending job' }], 'p99')}
${durableSection(results, info.mode['restore'] ?? 0)}
${apiSection(results)}
## delayq over HTTP, per request (Redis store; server in its own process)

autocannon for pushes (jobs due in 30 min), the TypeScript SDK for reserve + finish (1 job per reserve).
Latency is per request (a batch request carries 100 jobs).

${table(results, 'http', [
  { metric: 'rate', header: 'jobs/s' },
  { metric: 'p50', header: 'p50', unit: 'ms', digits: 1 },
  { metric: 'p99', header: 'p99', unit: 'ms', digits: 1 },
  { metric: 'errors', header: 'errors' },
])}
## A burst drained through each protocol (${fmt(info.mode['drain']!)} ready jobs; one server, Redis store)

One delayq server in its own process serves HTTP, gRPC and the beanstalkd protocol; for each protocol in turn
a fresh topic is filled with ready jobs, then drained: over HTTP by the TypeScript SDK's \`Worker\` (concurrency
100, finishing each job with its own request), over gRPC by one reserve stream (credit 100; each batch of
reservations finished with acks on the stream, the credit given back with them), over the beanstalkd
protocol by 100 jackd connections (reserve-with-timeout, then delete). Rate = jobs ÷ (last finish answered − start).

${table(
  results,
  'drain',
  [
    { metric: 'rate', header: 'jobs/s' },
    { metric: 'missing', header: 'not finished' },
  ],
  'rate',
)}
${scheduleFiresSection(results, info.mode)}
${dueHistogramSection(results, info.mode)}
${bulkCancelSection(results, info.mode)}
## Where the time goes

CPU per job during the enqueue (100 in flight), burst and 1k/s scenarios: the benchmark process (the client library,
and for delayq the whole service, in-process) and the server (Redis, or beanstalkd). With 2 cores, a system whose
client + server CPU per job is about 1 s ÷ its rate is CPU-bound; Redis commands per job counts round trips
(an EVALSHA counts once, the commands inside a script are counted too).

Enqueue:

${table(results, 'enqueue', where)}
Burst drain:

${table(results, 'burst', where)}
Steady 1k due/s (the producer and the consumer both run in the benchmark process):

${table(results, 'late1k', where)}
${existsSync(profiling) ? readFileSync(profiling, 'utf8') : ''}
## How each system is used

${noteRows}
- BullMQ: \`Queue.add(name, data, { delay })\` and \`addBulk\`; one \`Worker\` with \`concurrency: 100\` and
  \`removeOnComplete: { count: 0 }\`; \`hz\` set with \`CONFIG SET\` on the benchmark Redis.
- delayq: \`DelayqService\` in-process (as \`delayq serve\` runs it); the consumer, built as delayq's \`Worker\` is,
  shares its 100 slots between two reserve lanes that each long-poll \`reserve\` for their free slots and
  finish each job, never holding more than 100.
- Mode: ${Object.entries(info.mode)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}.
`;
  return { markdown, svg };
}

/**
 * The 10M run takes an hour (BullMQ alone fills ~8 GB), so it is run on its own
 * (`--only=late1k,pending --pending=10000000 --out=bench/results/pending-10m.md`); the full report links to it.
 */
function tenMillionNote(pending: number): string {
  const command = '`npx tsx bench/run.ts --only=late1k,pending --pending=10000000 --out=bench/results/pending-10m.md`';
  if (pending >= 10_000_000) return '';
  if (!existsSync(new URL('./results/pending-10m.md', import.meta.url)))
    return `For 10M pending: ${command} (full mode only).`;
  return `The same with 10M pending, run on its own (${command}): [results/pending-10m.md](bench/results/pending-10m.md).`;
}
