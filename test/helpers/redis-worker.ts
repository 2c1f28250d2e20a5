/**
 * One delayq process for the multi-process test: a DelayqService on a shared RedisStore that pushes its
 * share of jobs, consumes the topic (reserve → finish) and reports what it pushed and delivered.
 * Run with: node --import tsx test/helpers/redis-worker.ts <url> <prefix> <topic> <name> <jobs>
 */
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';

const [url, prefix, topic, name, jobCount] = process.argv.slice(2) as [string, string, string, string, string];
const store = new RedisStore({ url, prefix, nodeId: name });
const service = new DelayqService({ store, clock: store.clock, nodeId: name, timer: { safetyWakeMs: 1000 } });
await service.start();

let stopping = false;
const delivered: string[] = [];
const pushed: string[] = [];
process.on('message', (m) => {
  if (m === 'stop') stopping = true;
});

// On a busy machine a call can time out (E_STORE_UNAVAILABLE): like a real client, try again. A timed-out
// call may still have run, so pushes carry their own ids (a retried push is then a no-op).
const retrying = async <T>(call: () => Promise<T>): Promise<T> => {
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if ((err as { code?: string }).code !== 'E_STORE_UNAVAILABLE') throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
};

const consume = async (): Promise<void> => {
  while (!stopping) {
    const got = await retrying(() => service.reserve({ topics: [topic], count: 50, waitMs: 500 }));
    await Promise.all(
      got.map(async (r) => {
        let tries = 0;
        await retrying(() =>
          service.finish(r.job.id, r.token).catch((err: { code?: string }) => {
            // A retried finish whose first try did run finds the job finished already.
            if (tries++ > 0 && err.code === 'E_WRONG_STATE') return;
            throw err;
          }),
        );
        delivered.push(r.job.id);
      }),
    );
  }
};
const produce = async (): Promise<void> => {
  const total = Number(jobCount);
  // 100 pushes in flight, one job per call, as HTTP requests would do; due over the next 3 s.
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async () => {
      while (next < total) {
        const id = `${name}-${next++}`;
        await retrying(() =>
          service.push({ id, topic, delayMs: Math.floor(Math.random() * 3000), body: { from: name } }),
        );
        pushed.push(id);
      }
    }),
  );
};

await Promise.all([produce(), ...Array.from({ length: 4 }, consume)]);
// The report is large (thousands of ids): wait until it is written before the channel closes.
await new Promise<void>((resolve, reject) =>
  process.send!({ name, pushed, delivered }, undefined, {}, (err) => (err ? reject(err) : resolve())),
);
await service.close();
process.disconnect();
