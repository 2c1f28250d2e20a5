// Redis CPU per job of each step of a burst, in isolation: push (bulk), promoteDue, reserve (100 a call)
// and finish (100 concurrent, batched), on JOBS jobs of one topic all due at the same instant, through
// RedisStore on its own redis-server. Redis `INFO cpu` deltas, so nothing of Node's side is counted.
// Usage: npx tsx bench/probes/transitions.ts [JOBS=20000] [RUNS=3]
import { Redis } from 'ioredis';
import { DEFAULT_RETRY_POLICY } from '../../src/config.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { cleanup, startRedis } from '../servers.js';
import { bodyFor } from '../subject.js';

const jobs = Number(process.argv[2] ?? 20_000);
const runs = Number(process.argv[3] ?? 3);
const redis = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: redis.port });
const redisCpuUs = async (): Promise<number> => {
  const info = await admin.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)![1]);
  return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
};
const perJob = async (step: () => Promise<void>): Promise<number> => {
  const before = await redisCpuUs();
  await step();
  return ((await redisCpuUs()) - before) / jobs;
};
try {
  for (let run = 1; run <= runs; run++) {
    const store = new RedisStore({
      url: `redis://127.0.0.1:${redis.port}`,
      prefix: `tr${run}`,
      nodeId: 'probe',
      partitions: 1,
    });
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const dueAt = now + 1000;
    let n = 0;
    const push = await perJob(async () => {
      for (let i = 0; i < jobs; i += 1000) {
        const batch = Array.from({ length: Math.min(1000, jobs - i) }, () => ({
          id: `j${run}-${n++}`,
          topic: 'bench',
          tag: null,
          bizKey: null,
          body: JSON.stringify(bodyFor(dueAt)),
          runAt: dueAt,
          priority: 0,
          ttrMs: 30_000,
          ttlMs: null,
          retry: DEFAULT_RETRY_POLICY,
        }));
        await store.pushMany(batch, now);
      }
    });
    const at = dueAt + 1;
    const promote = await perJob(async () => {
      for (let moved = 0; moved < jobs;) moved += (await store.promoteDue(at, 1000)).count;
    });
    const taken: [string, string][] = [];
    const reserve = await perJob(async () => {
      while (taken.length < jobs)
        for (const r of (await store.reserve(['bench'], 100, at)).reservations) taken.push([r.job.id, r.token]);
    });
    const finish = await perJob(async () => {
      for (let i = 0; i < jobs; i += 100)
        await Promise.all(taken.slice(i, i + 100).map(([id, token]) => store.finish(id, token, at + 1)));
    });
    const f = (v: number) => v.toFixed(1);
    console.log(
      `run ${run}: Redis µs/job  push ${f(push)}  promote ${f(promote)}  reserve ${f(reserve)}  finish ${f(finish)}  (promote+reserve+finish ${f(promote + reserve + finish)})`,
    );
    await store.close();
  }
} finally {
  admin.disconnect();
  await cleanup();
}
