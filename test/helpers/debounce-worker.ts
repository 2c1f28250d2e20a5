/**
 * One delayq process for the debounce test: a DelayqService on a shared RedisStore. Told 'push', it sends its
 * share of concurrent pushes of one id with onExists "extend" and reports their answers; meanwhile it consumes
 * the topic (reserve → finish) and, told 'stop', reports what it was handed.
 * Run with: node --import tsx test/helpers/debounce-worker.ts <url> <prefix> <topic> <name>
 */
import { pushOutcomeOf } from '../../src/core/push-on-exists.js';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';

const [url, prefix, topic, name] = process.argv.slice(2) as [string, string, string, string];
const store = new RedisStore({ url, prefix, nodeId: name });
const service = new DelayqService({ store, clock: store.clock, nodeId: name, timer: { safetyWakeMs: 1000 } });
await service.start();

interface PushOrder {
  id: string;
  count: number;
  delayMs: number;
}

let stopping = false;
const delivered: { id: string; runAt: number; reservedAt: number }[] = [];
const consume = async (): Promise<void> => {
  while (!stopping) {
    const got = await service.reserve({ topics: [topic], count: 10, waitMs: 300 });
    for (const r of got) {
      delivered.push({ id: r.job.id, runAt: r.job.runAt, reservedAt: r.job.reservedAt! });
      await service.finish(r.job.id, r.token);
    }
  }
};
const consuming = consume();

process.on('message', (m: 'stop' | PushOrder) => {
  if (m === 'stop') {
    stopping = true;
    void consuming.then(async () => {
      process.send!({ name, delivered });
      await service.close();
      process.disconnect();
    });
    return;
  }
  void Promise.all(
    Array.from({ length: m.count }, () =>
      service.push({ id: m.id, topic, delayMs: m.delayMs, onExists: 'extend', maxWaitMs: 60_000 }),
    ),
  ).then((answers) =>
    process.send!({
      name,
      answers: answers.map((a) => ({ outcome: pushOutcomeOf(a), runAt: a.job.runAt })),
    }),
  );
});
process.send!({ name, ready: true });
