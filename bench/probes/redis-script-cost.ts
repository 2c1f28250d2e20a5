// What a drained job costs inside Redis: ready jobs reserved and finished through the bare RedisStore, in
// calls of BATCH jobs, with Redis's own figures (INFO commandstats: calls and µs per job for each command,
// the scripts' EVALSHA including the commands they call). No event stream, no listener: the store alone.
// Usage: npx tsx bench/probes/redis-script-cost.ts [JOBS=20000] [BATCH=20 …]
import { Redis } from 'ioredis';
import type { Reservation } from '../../src/core/job.js';
import { probeJob } from '../lib.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { cleanup, startRedis } from '../servers.js';
import { bodyFor } from '../subject.js';
import { redisCommandCalls } from '../subjects/delayq-subject.js';

const jobs = Number(process.argv[2] ?? 20_000);
const batches = process.argv.slice(3).map(Number);
const TOPIC = 'probe';

type Calls = Awaited<ReturnType<typeof redisCommandCalls>>;
function perJob(before: Calls, after: Calls): string {
  return [...after]
    .map(
      ([name, c]) => [name, c.calls - (before.get(name)?.calls ?? 0), c.usec - (before.get(name)?.usec ?? 0)] as const,
    )
    .filter(([name, calls]) => calls > 0 && name !== 'info')
    .sort((a, b) => b[2] - a[2])
    .map(([name, calls, usec]) => `${name} ${(calls / jobs).toFixed(3)}/job ${(usec / jobs).toFixed(2)} µs/job`)
    .join('; ');
}

const server = await startRedis();
const admin = new Redis({ host: '127.0.0.1', port: server.port });
try {
  for (const batch of batches.length ? batches : [1, 20, 100]) {
    await admin.flushall();
    const store = new RedisStore({
      url: `redis://127.0.0.1:${server.port}`,
      prefix: 'cost',
      partitions: 1,
      nodeId: 'probe',
    });
    await store.open();
    const body = JSON.stringify(bodyFor(0));
    const now = Date.now();
    for (let i = 0; i < jobs; i += 1000) {
      const chunk = Array.from({ length: Math.min(1000, jobs - i) }, (_, k) =>
        probeJob(`job-${i + k}`, TOPIC, body, now),
      );
      await store.pushMany(chunk, now);
    }
    const held: Reservation[] = [];
    const beforeReserve = await redisCommandCalls(admin);
    for (;;) {
      const { reservations } = await store.reserve([TOPIC], batch, Date.now());
      if (reservations.length === 0) break;
      held.push(...reservations);
    }
    const beforeFinish = await redisCommandCalls(admin);
    for (let i = 0; i < held.length; i += batch)
      await store.finishMany(
        held.slice(i, i + batch).map((r) => ({ id: r.job.id, token: r.token })),
        Date.now(),
      );
    const after = await redisCommandCalls(admin);
    console.log(`batch ${batch}, ${held.length} jobs`);
    console.log(`  reserve: ${perJob(beforeReserve, beforeFinish)}`);
    console.log(`  finish:  ${perJob(beforeFinish, after)}`);
    await store.close();
  }
} finally {
  admin.disconnect();
  await cleanup();
}
