/**
 * How fast the due-time histogram read is on a big backlog: pushes N delayed jobs (default 1,000,000,
 * `--jobs N`) spread evenly over the next 30 days into one topic on the Redis store and into SQLite, then
 * times the three console views (next hour by minute, next day by hour, next month by day), each 3 times.
 * Run: npx tsx bench/probes/due-histogram.ts [--jobs N]. Redis on 127.0.0.1:6379 under a random prefix,
 * deleted afterwards.
 */
import { Redis } from 'ioredis';
import { aJob } from '../../test/helpers/jobs.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

const arg = process.argv.indexOf('--jobs');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 1_000_000;
const now = Date.now();
const MONTH = 30 * 86_400_000;
const views = [
  { name: 'next hour by minute', to: now + 3_600_000, bucketMs: 60_000 },
  { name: 'next day by hour', to: now + 86_400_000, bucketMs: 3_600_000 },
  { name: 'next month by day', to: now + MONTH, bucketMs: 86_400_000 },
];

async function fill(store: Store): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < N; i += 5000) {
    const batch = [];
    for (let k = i; k < Math.min(N, i + 5000); k++)
      batch.push(aJob({ id: `j${k}`, topic: 'big', now, delayMs: 1000 + Math.floor((k / N) * MONTH) }));
    await store.pushMany(batch, now);
  }
  return performance.now() - started;
}

async function time(label: string, store: Store): Promise<void> {
  for (const view of views) {
    const runs: number[] = [];
    let total = 0;
    for (let r = 0; r < 3; r++) {
      const started = performance.now();
      const counts = await store.dueHistogram({ topic: 'big', from: now, to: view.to, bucketMs: view.bucketMs });
      runs.push(performance.now() - started);
      total = counts.reduce((a, b) => a + b, 0);
    }
    console.log(`${label} ${view.name}: ${runs.map((ms) => ms.toFixed(0)).join(' / ')} ms (${total} jobs counted)`);
  }
}

const prefix = `bench-hist-${Math.random().toString(36).slice(2, 8)}`;
const redis = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, partitions: 1, nodeId: 'bench' });
await redis.open();
console.log(`redis: pushed ${N} jobs in ${((await fill(redis)) / 1000).toFixed(1)} s`);
await time('redis', redis);
await redis.close();
const sqlite = new SqliteStore({ path: ':memory:', nodeId: 'bench' });
await sqlite.open();
console.log(`sqlite: pushed ${N} jobs in ${((await fill(sqlite)) / 1000).toFixed(1)} s`);
await time('sqlite', sqlite);
await sqlite.close();
const raw = new Redis({ host: '127.0.0.1', port: 6379 });
let cursor = '0';
do {
  const [next, keys] = await raw.scan(cursor, 'MATCH', `{${prefix}:*`, 'COUNT', 1000);
  cursor = next;
  if (keys.length) await raw.unlink(...keys);
} while (cursor !== '0');
await raw.quit();
