// `npm run bench:scale`: each shape loaded from 0 to `--max` jobs (default 10M), measured at 0, 100k, 1M, 3M
// and 10M (those below --max, and --max), BullMQ beside it; writes bench/results/scale.json, the page
// bench/results/scale.md and its charts. Outside CI: minutes per shape at 10M on an idle host.
//
//   npm run bench:scale                                   every shape to 10M, BullMQ to 10M
//   npm run bench:scale -- --max=20000 --out=.tmp/scale.md   the smoke path: seconds per shape
//   npm run bench:scale -- --shapes=redis,cluster --bullmq-max=1000000
//   npm run bench:scale -- --render-only [--from=FILE] [--out=FILE]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ensureServerBuilt } from '../build-server.js';
import { describeMachine } from '../machine.js';
import { REPO_ROOT } from '../render.js';
import { cleanup } from '../servers.js';
import { BULLMQ_SHAPE, BullmqWalk } from './bullmq.js';
import { ShapeWalk } from './checkpoint.js';
import { CANCEL_TOPIC, cancelAndPurge } from './operations.js';
import { DEFAULT_SCALE_JSON, parseScaleOptions } from './options.js';
import {
  mergeRun,
  readScaleRecord,
  scaleJson,
  type MergedRun,
  type ScaleInfo,
  type ScalePoint,
  type ScaleRecord,
} from './record.js';
import { renderScale } from './report.js';
import { SHAPE_NAMES, ScaleShape } from './shapes.js';

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const rounded = (l: number[]) => l.map((x) => Math.round(x * 100) / 100);
const argv = process.argv.slice(2);

/** Writes the page and its charts beside `jsonPath`'s results; returns the files written. */
function writePage(record: ScaleRecord, pagePath: string): string[] {
  const dir = dirname(pagePath);
  const prefix = pagePath.split('/').pop()!.replace(/\.md$/, '');
  const link = relative(dir, join(REPO_ROOT, 'BENCHMARKS.md')).split('\\').join('/');
  const { markdown, charts } = renderScale(record, prefix, link);
  writeFileSync(pagePath, markdown);
  for (const c of charts) writeFileSync(join(dir, c.name), c.svg);
  return [pagePath, ...charts.map((c) => join(dir, c.name))];
}

if (argv.includes('--render-only')) {
  const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const from = resolve(option('from') ?? DEFAULT_SCALE_JSON);
  const out = resolve(option('out') ?? from.replace(/\.json$/, '.md'));
  for (const file of writePage(readScaleRecord(from), out)) log(`wrote ${relative(REPO_ROOT, file)}`);
  process.exit(0);
}

const opts = parseScaleOptions(argv);
const watchdog = setTimeout(() => {
  log(`bench:scale: watchdog fired after ${opts.watchdogMs / 1000} s; stopping servers`);
  void cleanup().finally(() => process.exit(2));
}, opts.watchdogMs);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));

async function main(): Promise<void> {
  const info: ScaleInfo = {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    command: opts.command,
    machine: describeMachine(),
    loadBefore: rounded(loadavg()),
    loadAfter: [],
    max: opts.max,
    checkpoints: opts.checkpoints,
    shapes: opts.shapes.map((k) => SHAPE_NAMES[k]),
    counts: opts.counts,
    failures: [],
    missingReads: [],
  };
  // --merge: this run's shapes replace theirs in the results file; the other shapes' figures stay.
  const measured = [...info.shapes, ...(opts.bullmqMax > 0 ? [BULLMQ_SHAPE] : [])];
  let merged: MergedRun | undefined;
  let record: ScaleRecord = { info, points: [] };
  if (opts.merge && existsSync(opts.jsonPath)) {
    record = readScaleRecord(opts.jsonPath);
    merged = mergeRun(record, info, measured);
  }
  const { failures } = record.info;
  // What was measured so far is on disk after every backlog: a long run stopped half way keeps its figures.
  mkdirSync(dirname(opts.jsonPath), { recursive: true });
  const save = () => writeFileSync(opts.jsonPath, scaleJson(record));
  const point = (shape: string, backlog: number, metrics: ScalePoint['metrics']) => {
    record.points.push({ shape, backlog, metrics: { ...metrics, load1: rounded(loadavg())[0]! } });
    save();
  };
  ensureServerBuilt(log);
  const t0 = Date.now();
  for (const key of opts.shapes) {
    let shape: ScaleShape | undefined;
    try {
      log(`${SHAPE_NAMES[key]}: starting`);
      shape = await ScaleShape.start(key);
      const walk = new ShapeWalk(shape, opts.counts, t0);
      for (const backlog of opts.checkpoints) {
        log(`${shape.name}: to ${backlog.toLocaleString('en-US')} jobs, then measuring`);
        const fail = (what: string, err: unknown) => {
          failures.push(`${shape!.name} at ${backlog}: ${what}: ${(err as Error).message}`);
          log(`FAILED ${shape!.name} at ${backlog}: ${what}: ${(err as Error).stack ?? String(err)}`);
        };
        const metrics = await walk.at(backlog, fail);
        if (opts.ops && backlog === opts.max) {
          log(`${shape.name}: bulk cancel of topic ${CANCEL_TOPIC} beside a 1k/s stream, then a purge`);
          Object.assign(metrics, await cancelAndPurge(shape).catch((err: unknown) => (fail('operations', err), {})));
        }
        point(shape.name, backlog, metrics);
      }
      for (const id of walk.missingReads) if (!record.info.missingReads.includes(id)) record.info.missingReads.push(id);
    } catch (err) {
      failures.push(`${SHAPE_NAMES[key]}: ${(err as Error).message}`);
      log(`FAILED ${SHAPE_NAMES[key]}: ${(err as Error).stack ?? String(err)}`);
    } finally {
      await shape?.close().catch(() => undefined);
    }
  }
  if (opts.bullmqMax > 0) {
    let bull: BullmqWalk | undefined;
    try {
      bull = await BullmqWalk.start(opts.counts, t0);
      for (const backlog of opts.checkpoints.filter((b) => b <= opts.bullmqMax)) {
        log(`${BULLMQ_SHAPE}: to ${backlog.toLocaleString('en-US')} jobs, then measuring`);
        point(BULLMQ_SHAPE, backlog, await bull.at(backlog));
      }
    } catch (err) {
      failures.push(`${BULLMQ_SHAPE}: ${(err as Error).message}`);
    } finally {
      await bull?.close().catch(() => undefined);
    }
  }
  const finish = merged ?? record.info;
  finish.finishedAt = new Date().toISOString();
  finish.loadAfter = rounded(loadavg());
  save();
  for (const file of [opts.jsonPath, ...writePage(record, opts.out)]) log(`wrote ${relative(REPO_ROOT, file)}`);
  if (failures.length) {
    log(`${failures.length} measurement(s) failed:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }
}

try {
  await main();
} catch (err) {
  process.stderr.write(`bench:scale failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
