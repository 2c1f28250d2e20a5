/**
 * One delayq process for the multi-process rate limit test: a DelayqService on a shared RedisStore whose
 * consumers long-poll a rate-limited topic (reserve → finish) and report when each job was reserved, by
 * the store's clock (Redis TIME for every process).
 * Run with: node --import tsx test/helpers/rate-limited-worker.ts <url> <prefix> <topic> <name>
 */
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';

const TTR_MS = 60_000;
const [url, prefix, topic, name] = process.argv.slice(2) as [string, string, string, string];
const store = new RedisStore({ url, prefix, nodeId: name });
const service = new DelayqService({ store, clock: store.clock, nodeId: name, timer: { safetyWakeMs: 1000 } });
await service.start();

let stopping = false;
const reservedAt: number[] = [];
process.on('message', (m) => {
  if (m === 'stop') stopping = true;
});

const consume = async (): Promise<void> => {
  while (!stopping) {
    const got = await service.reserve({ topics: [topic], count: 5, waitMs: 500, ttrMs: TTR_MS });
    for (const r of got) reservedAt.push(r.deadlineAt - TTR_MS);
    await Promise.all(got.map((r) => service.finish(r.job.id, r.token)));
  }
};

process.send!({ ready: name });
await Promise.all(Array.from({ length: 4 }, consume));
await new Promise<void>((resolve, reject) =>
  process.send!({ name, reservedAt }, undefined, {}, (err) => (err ? reject(err) : resolve())),
);
await service.close();
process.disconnect();
