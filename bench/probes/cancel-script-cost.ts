// What a bulk cancel costs inside Redis: the bare RedisStore on one partition, JOBS of bench:scale's jobs
// (8 topics, due over 30 days, a bizKey each) pushed in calls of 1,000, then topic t7's jobs (an eighth)
// cancelled through bulkBySelector in calls of 1,000, as `POST /v1/jobs/bulk` does. Prints the cancel's rate,
// Redis's CPU and scripts' µs a cancelled job, and the commands the scripts called (INFO commandstats).
// `cancel starts` is printed when the push is over (to attach `perf record -p <redis pid>` to the cancel).
// Usage: npx tsx bench/probes/cancel-script-cost.ts [JOBS=200000]   DRY=1: a dry run (the list pages alone)
import { Redis } from 'ioredis';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { bulkBySelector } from '../../src/store/bulk-by-selector.js';
import { probeJob } from '../lib.js';
import { scaleJob } from '../scale/jobs.js';
import { cleanup, startRedis } from '../servers.js';
import { redisCommandCalls, redisCpuMs } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 200_000);
const dryRun = process.env['DRY'] === '1';
const server = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: server.port });
try {
  const store = new RedisStore({ url: `redis://127.0.0.1:${server.port}`, prefix: 'c', partitions: 1, nodeId: 'p' });
  await store.open();
  const t0 = Date.now();
  for (let from = 0; from < jobs; from += 1000) {
    const batch = Array.from({ length: Math.min(1000, jobs - from) }, (_, k) => {
      const s = scaleJob(from + k, t0);
      return { ...probeJob(`j${from + k}`, s.topic, JSON.stringify(s.body), s.runAt), bizKey: s.bizKey };
    });
    await store.pushMany(batch, t0);
  }
  console.log('cancel starts');
  const [calls0, cpu0] = [await redisCommandCalls(admin), await redisCpuMs(admin)];
  const started = performance.now();
  const selector = { topic: 't7', bizKey: null, tag: null, state: null, dueFrom: null, dueTo: null };
  let cursor: string | null = null;
  let done = 0;
  do {
    const action = { kind: 'cancel', reason: 'probe' } as const;
    const slice = await bulkBySelector(store, { action, selector, limit: 1000, cursor, dryRun }, Date.now());
    done += dryRun ? slice.matched : slice.applied;
    cursor = slice.next;
  } while (cursor);
  const seconds = (performance.now() - started) / 1000;
  const [calls1, cpu1] = [await redisCommandCalls(admin), await redisCpuMs(admin)];
  console.log(
    `${done} jobs ${dryRun ? 'listed' : 'cancelled'} at ${Math.round(done / seconds)}/s; ` +
      `Redis CPU ${(((cpu1 - cpu0) * 1000) / done).toFixed(1)} µs a job`,
  );
  const rows = [...calls1]
    .map(([name, v]) => ({
      name,
      calls: v.calls - (calls0.get(name)?.calls ?? 0),
      usec: v.usec - (calls0.get(name)?.usec ?? 0),
    }))
    .filter((r) => r.calls > 0)
    .sort((a, b) => b.usec - a.usec);
  for (const r of rows.slice(0, 12))
    console.log(`  ${r.name.padEnd(12)} ${(r.calls / done).toFixed(2)} a job, ${(r.usec / done).toFixed(2)} µs a job`);
  await store.close();
} finally {
  admin.disconnect();
  await cleanup();
}
