// The due-time histogram (GET /v1/stats/due, docs/due-histogram.md) on a Redis store holding many delayed
// jobs: jobs spread evenly over the next 30 days, then the console's three ranges (next hour by minute,
// next day by hour, next month by day) read in turn, each three times. Scenario "due" of bench/run.ts.
import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { fmt, median } from './lib.js';
import { table, type Results } from './results-table.js';
import { startRedis } from './servers.js';

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const DAY = 86_400_000;
const RANGES = [
  ['next hour by minute', 3_600_000, 60_000],
  ['next day by hour', DAY, 3_600_000],
  ['next month by day', 30 * DAY, DAY],
] as const;
const BATCH = 1000;

/** Fills a fresh Redis with `jobs` delayed jobs and times the histogram reads; a failure is reported, not fatal. */
export async function runDueHistogram(results: Results, failures: string[], jobs: number): Promise<void> {
  const redis = await startRedis();
  const config = loadConfig({
    env: {},
    overrides: { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${redis.port}`, prefix: 'due' } },
  });
  const service = createService(config);
  try {
    await service.start();
    const from = Date.now() + 60_000;
    const t0 = performance.now();
    for (let i = 0; i < jobs; i += BATCH) {
      const n = Math.min(BATCH, jobs - i);
      await service.pushBatch(
        Array.from({ length: n }, (_, k) => ({ topic: 'due', runAt: from + Math.floor(((i + k) / jobs) * 30 * DAY) })),
      );
    }
    log(`due: ${fmt(jobs)} delayed jobs pushed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const system = `delayq · Redis, ${fmt(jobs)} delayed jobs`;
    for (const [name, spanMs, bucketMs] of RANGES) {
      const times: number[] = [];
      let total = 0;
      for (let run = 0; run < 3; run++) {
        const started = performance.now();
        const { counts } = await service.topics.dueHistogram({ from, to: from + spanMs, bucketMs });
        times.push(performance.now() - started);
        total = counts.reduce((a, b) => a + b, 0);
      }
      results.add('due', `${system}: ${name}`, 'ms', median(times));
      results.add('due', `${system}: ${name}`, 'jobs', total);
    }
  } catch (err) {
    failures.push(`due: ${(err as Error).message}`);
  } finally {
    await service.close();
    await redis.stop();
  }
}

/** The BENCHMARKS.md section of the "due" scenario. */
export function dueHistogramSection(results: Results, mode: Record<string, number>): string {
  return `## Due-time histogram on ${fmt(mode['dueJobs'] ?? 0)} delayed jobs (Redis store)

\`GET /v1/stats/due\` as the console reads it, over delayed jobs spread evenly across the next 30 days (one
topic, one partition): the median of three reads of each range, in-process (no HTTP), and the jobs counted.

${table(results, 'due', [
  { metric: 'ms', header: 'time', unit: 'ms' },
  { metric: 'jobs', header: 'jobs counted' },
])}`;
}
