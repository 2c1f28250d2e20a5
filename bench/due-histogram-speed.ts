// The due-time histogram (GET /v1/stats/due, docs/due-histogram.md) on a store holding many delayed jobs:
// jobs spread evenly over the next 30 days, then the console's three ranges (next hour by minute, next day by
// hour, next month by day, each from the start of its current bucket as the console asks) read in turn, each
// three times; on Redis also the hour view with edges off the minute (read from the delayed sets, not the
// counters). Scenario "due" of bench/run.ts, on the Redis store ("redis") and the embedded SQLite one ("embedded").
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';
import { fmt, median } from './lib.js';
import type { Results } from './results.js';
import { startRedis, tempDir, type Server } from './servers.js';

const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const DAY = 86_400_000;
const RANGES = [
  ['next hour by minute', 3_600_000, 60_000],
  ['next day by hour', DAY, 3_600_000],
  ['next month by day', 30 * DAY, DAY],
] as const;
const BATCH = 1000;

export type DueStore = 'redis' | 'embedded';

/** Fills a fresh store with `jobs` delayed jobs and times the histogram reads; a failure is reported, not fatal. */
export async function runDueHistogram(
  results: Results,
  failures: string[],
  jobs: number,
  stores: readonly DueStore[] = ['redis', 'embedded'],
): Promise<void> {
  for (const kind of stores) await runOn(kind, results, failures, jobs);
}

async function runOn(kind: DueStore, results: Results, failures: string[], jobs: number): Promise<void> {
  let redis: Server | undefined;
  try {
    redis = kind === 'redis' ? await startRedis() : undefined;
    const overrides = redis
      ? { store: { kind: 'redis' as const }, redis: { url: `redis://127.0.0.1:${redis.port}`, prefix: 'due' } }
      : { store: { kind: 'sqlite' as const }, sqlite: { path: join(tempDir('due-sqlite'), 'due.db') } };
    const service = createService(loadConfig({ env: {}, overrides }));
    try {
      await service.start();
      const start = Date.now() + 60_000;
      const t0 = performance.now();
      for (let i = 0; i < jobs; i += BATCH) {
        const n = Math.min(BATCH, jobs - i);
        const runAt = (k: number) => start + Math.floor(((i + k) / jobs) * 30 * DAY);
        await service.pushBatch(Array.from({ length: n }, (_, k) => ({ topic: 'due', runAt: runAt(k) })));
      }
      log(`due · ${kind}: ${fmt(jobs)} delayed jobs pushed in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      const system = `delayq · ${kind === 'redis' ? 'Redis' : 'SQLite'}, ${fmt(jobs)} delayed jobs`;
      const views: [string, number, number, number][] = RANGES.map(([name, spanMs, bucketMs]) => {
        const from = Math.floor(start / bucketMs) * bucketMs;
        return [name, from, from + spanMs, bucketMs];
      });
      if (kind === 'redis')
        views.push(['next hour by minute, edges off the minute', start + 1, start + 3_600_001, 60_000]);
      for (const [name, from, to, bucketMs] of views) {
        const times: number[] = [];
        let total = 0;
        for (let run = 0; run < 3; run++) {
          const started = performance.now();
          const { counts } = await service.topics.dueHistogram({ from, to, bucketMs });
          times.push(performance.now() - started);
          total = counts.reduce((a, b) => a + b, 0);
        }
        log(`due · ${kind}: ${name}: ${times.map((t) => t.toFixed(1)).join(', ')} ms, ${fmt(total)} jobs`);
        results.add('due', `${system}: ${name}`, 'ms', median(times));
        results.add('due', `${system}: ${name}`, 'jobs', total);
      }
    } finally {
      await service.close();
    }
  } catch (err) {
    failures.push(`due · ${kind}: ${(err as Error).message}`);
  } finally {
    await redis?.stop();
  }
}
