// What a pushed job costs inside Redis, by what the job carries: the bare RedisStore on one partition, JOBS
// jobs pushed in calls of 1,000 (as a batch request reaches the store), each variant on an emptied Redis.
// Variants: `near` (one topic, due in 30 min, no bizKey: BENCHMARKS.md's push), `bizkey` (the same with a bizKey
// each), `spread` (8 topics, due over 30 days as bench:scale's jobs, no bizKey), `scale` (bench:scale's jobs: 8
// topics, 30 days, a bizKey each). Redis's own µs a job (INFO commandstats: the scripts' EVALSHA including the
// commands they call) and its CPU a job (INFO cpu), and used_memory a job. Apart: `topics` (8 topics, due in
// 30 min), `days` (one topic, due over 30 days).
// Usage: npx tsx bench/probes/push-script-cost.ts [JOBS=100000] [ROUNDS=2] [variant …]
//   GROWTH=N: one round per variant, the figures printed for every N jobs as the backlog grows to JOBS.
import { Redis } from 'ioredis';
import { probeJob } from '../lib.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { scaleJob } from '../scale/jobs.js';
import { cleanup, startRedis } from '../servers.js';
import { bodyFor } from '../subject.js';
import { redisCommandCalls, redisCpuMs } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 2);
const variants = process.argv.slice(4).length ? process.argv.slice(4) : ['near', 'bizkey', 'spread', 'scale'];
const CALL = 1000;
const growth = Number(process.env['GROWTH'] ?? 0);
const server = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: server.port });
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))![1]);

function jobOf(variant: string, n: number, t0: number) {
  const near = probeJob(`j${n}`, 'p', JSON.stringify(bodyFor(0)), t0 + 30 * 60_000);
  if (variant === 'near') return near;
  if (variant === 'bizkey') return { ...near, bizKey: `k${n}` };
  const s = scaleJob(n, t0);
  if (variant === 'topics') return { ...near, topic: s.topic };
  if (variant === 'days') return { ...near, runAt: s.runAt };
  return {
    ...near,
    topic: s.topic,
    runAt: s.runAt,
    body: JSON.stringify(s.body),
    bizKey: variant === 'scale' ? s.bizKey : null,
  };
}

try {
  for (let round = 1; round <= (growth ? 1 : rounds); round++) {
    for (const variant of variants) {
      await admin.flushall();
      const store = new RedisStore({
        url: `redis://127.0.0.1:${server.port}`,
        prefix: 'push',
        partitions: 1,
        nodeId: 'p',
      });
      await store.open();
      const t0 = Date.now();
      const [calls0, cpu0, mem0] = [await redisCommandCalls(admin), await redisCpuMs(admin), await usedMemory()];
      const step = growth || jobs;
      let [c0, u0, m0] = [calls0, cpu0, mem0];
      for (let from = 0; from < jobs; from += step) {
        const to = Math.min(jobs, from + step);
        const started = performance.now();
        for (let i = from; i < to; i += CALL)
          await store.pushMany(
            Array.from({ length: Math.min(CALL, to - i) }, (_, k) => jobOf(variant, i + k, t0)),
            Date.now(),
          );
        const seconds = (performance.now() - started) / 1000;
        const [c1, u1, m1] = [await redisCommandCalls(admin), await redisCpuMs(admin), await usedMemory()];
        const n = to - from;
        const script = (c1.get('evalsha')?.usec ?? 0) - (c0.get('evalsha')?.usec ?? 0);
        const scripts = (c1.get('evalsha')?.calls ?? 0) - (c0.get('evalsha')?.calls ?? 0);
        console.log(
          `round ${round} ${variant.padEnd(6)} ${growth ? `${from}–${to}` : ''}: ${Math.round(n / seconds)} jobs/s, ` +
            `scripts ${(script / n).toFixed(1)} µs/job (${scripts} calls), Redis CPU ${(((u1 - u0) * 1000) / n).toFixed(1)} µs/job, ` +
            `used_memory ${Math.round((m1 - m0) / n)} B/job`,
        );
        [c0, u0, m0] = [c1, u1, m1];
      }
      await store.close();
    }
  }
} finally {
  admin.disconnect();
  await cleanup();
}
