/**
 * Debounce over three delayq processes on one Redis: 200 concurrent pushes of one id with onExists "extend",
 * sent from three processes at once, leave exactly one job, due at the time the last applied push set, and it
 * is handed out once, not before that time, to one of the consumers the three processes run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { nextMessage } from '../helpers/child-messages.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('debounce-proc');
afterAll(() => prefixes.sweep());

const WORKER = fileURLToPath(new URL('../helpers/debounce-worker.ts', import.meta.url));
const URL_ = 'redis://127.0.0.1:6379';

interface Answer {
  outcome: string;
  runAt: number;
}
type Message =
  { ready: true } | { answers: Answer[] } | { delivered: { id: string; runAt: number; reservedAt: number }[] };

describe('debounce over three delayq processes on one Redis', () => {
  it('200 concurrent extends of one id: one job, fired once at the last push’s due time', async () => {
    const prefix = prefixes.next();
    const topic = 'debounced';
    const id = 'debounced-1';
    const store = new RedisStore({ url: URL_, prefix, nodeId: 'observer' });
    const observer = new DelayqService({ store, clock: store.clock, runTimer: false });
    await observer.start();
    const children: ChildProcess[] = [];
    try {
      const next = (child: ChildProcess, pick: (m: Message) => boolean) => nextMessage<Message>(child, pick);
      const ready: Promise<Message>[] = [];
      for (let i = 0; i < 3; i++) {
        const child = spawn(process.execPath, ['--import', 'tsx', WORKER, URL_, prefix, topic, `deb-${i}`], {
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        });
        children.push(child);
        ready.push(next(child, (m) => 'ready' in m));
      }
      await Promise.all(ready);
      const answered = children.map((child) => next(child, (m) => 'answers' in m));
      children.forEach((child, i) => child.send({ id, count: i === 0 ? 68 : 66, delayMs: 5000 }));
      const answers = (await Promise.all(answered)).flatMap((m) => (m as { answers: Answer[] }).answers);
      expect(answers).toHaveLength(200);
      expect(answers.filter((a) => a.outcome === 'created')).toHaveLength(1);
      expect(answers.filter((a) => a.outcome === 'extended')).toHaveLength(199);

      const history = await observer.history(id);
      expect(history.map((h) => h.event)).toEqual(['push', ...Array<string>(199).fill('extend')]);
      const job = await observer.get(id);
      expect(history.at(-1)!.reason).toBe(`runAt=${job.runAt}`);
      expect(answers.map((a) => a.runAt)).toContain(job.runAt);

      // Wait for the one delivery (the consumers finish it), then stop the processes and count deliveries.
      for (let i = 0; (await observer.get(id)).state !== 'finished'; i++) {
        if (i > 400) throw new Error('the debounced job was not delivered');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const reports = children.map((child) => next(child, (m) => 'delivered' in m));
      for (const child of children) child.send('stop');
      const delivered = (await Promise.all(reports)).flatMap(
        (m) => (m as { delivered: { id: string; runAt: number; reservedAt: number }[] }).delivered,
      );
      expect(delivered.map((d) => d.id)).toEqual([id]);
      expect(delivered[0]!.runAt).toBe(job.runAt);
      expect(delivered[0]!.reservedAt).toBeGreaterThanOrEqual(job.runAt);
      expect((await observer.history(id)).filter((h) => h.event === 'reserve')).toHaveLength(1);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill();
      await observer.close();
    }
  }, 60_000);
});
