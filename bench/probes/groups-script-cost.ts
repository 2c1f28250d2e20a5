// What a grouped job costs inside Redis against a plain one, in the groups drain's shape: JOBS ready jobs in
// 1,000 groups (bound 1) and the same jobs without groups, each reserved and finished through the bare
// RedisStore (one partition) in calls of BATCH, both each round. Redis's own µs a job (INFO commandstats,
// the scripts' EVALSHA including the commands they call), the reserves apart from the finishes.
// Usage: npx tsx bench/probes/groups-script-cost.ts [JOBS=20000] [BATCH=20] [ROUNDS=3]
import { Redis } from 'ioredis';
import { probeJob } from '../lib.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { cleanup, startRedis } from '../servers.js';
import { bodyFor } from '../subject.js';
import { redisCommandCalls } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 20000);
const batch = Number(process.argv[3] ?? 20);
const rounds = Number(process.argv[4] ?? 3);
const server = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: server.port });
const evalUs = async () => {
  const c = await redisCommandCalls(admin);
  return c.get('evalsha')?.usec ?? 0;
};
try {
  for (let round = 0; round < rounds; round++) {
    for (const grouped of [true, false]) {
      await admin.flushall();
      const store = new RedisStore({
        url: `redis://127.0.0.1:${server.port}`,
        prefix: 'g',
        partitions: 1,
        nodeId: 'p',
      });
      await store.open();
      const topic = grouped ? 'grp' : 'plain';
      const body = JSON.stringify(bodyFor(0));
      const now = Date.now();
      for (let i = 0; i < jobs; i += 1000) {
        const chunk = Array.from({ length: 1000 }, (_, k) => ({
          ...probeJob(`j-${i + k}`, topic, body, now),
          ...(grouped ? { group: `g${(i + k) % 1000}` } : {}),
        }));
        await store.pushMany(chunk, now);
      }
      const options = grouped ? { groupConcurrency: new Map([[topic, 1]]) } : {};
      let [reserveUs, finishUs, n] = [0, 0, 0];
      for (;;) {
        const a = await evalUs();
        const { reservations } = await store.reserve([topic], batch, Date.now(), options);
        const b = await evalUs();
        reserveUs += b - a;
        if (!reservations.length) break;
        n += reservations.length;
        await store.finishMany(
          reservations.map((r) => ({ id: r.job.id, token: r.token })),
          Date.now(),
        );
        finishUs += (await evalUs()) - b;
      }
      console.log(
        `${grouped ? 'groups' : 'plain '} ${n} jobs: reserve ${(reserveUs / n).toFixed(1)} µs/job, finish ${(finishUs / n).toFixed(1)} µs/job`,
      );
      await store.close();
    }
  }
} finally {
  admin.disconnect();
  await cleanup();
}
