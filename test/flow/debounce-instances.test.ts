/**
 * Debounce across instances: three delayq nodes on one store take 200 concurrent pushes of one id with
 * onExists "extend". Exactly one job exists, its due time is the one the last push applied implies, and it
 * fires once.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import type { PushResponse } from '../../src/protocol/schemas.js';
import { shapeHarness } from '../helpers/store-shapes.js';

describe.each(['redis', 'redis+postgres'] as const)('debounce over three instances on one %s store', (shape) => {
  const harness = shapeHarness(shape, 'debounce');
  const clients: DelayqClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    await harness.close();
  });
  afterAll(() => harness.cleanup());

  it('200 concurrent extends of one id leave one job that fires once, at the last push’s due time', async () => {
    const instances = await harness.instances(3);
    for (const { url } of instances) clients.push(new DelayqClient({ url, coalescePushes: false }));
    const topic = `debounce-${Math.random().toString(36).slice(2, 8)}`;
    const id = `${topic}-job`;
    const answers: PushResponse[] = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        clients[i % 3]!.push({ topic, id, body: i, delayMs: 4000, onExists: 'extend', maxWaitMs: 60_000 }),
      ),
    );
    const outcomes = answers.map((a) => a.outcome);
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'extended')).toHaveLength(199);
    expect(new Set(answers.map((a) => a.job.id))).toEqual(new Set([id]));
    // Only the first push's body counts: extend moves the due time alone.
    const created = answers.find((a) => a.outcome === 'created')!;
    const { job, history } = await clients[0]!.getWithHistory(id);
    expect(job.body).toBe(created.job.body);
    // The history holds every push, in the order the store applied them; the last one set the due time.
    expect(history.map((h) => h.event)).toEqual(['push', ...Array<string>(199).fill('extend')]);
    expect(history.at(-1)!.reason).toBe(`runAt=${job.runAt}`);
    expect(answers.map((a) => a.job.runAt)).toContain(job.runAt);
    const counts = (await clients[1]!.stats()).find((t) => t.topic === topic)!.counts;
    expect(counts).toMatchObject({ delayed: 1, ready: 0, reserved: 0 });

    // It fires once: one consumer per instance waits; exactly one gets it, not before its due time.
    const waits = clients.map((c) => c.reserve({ topics: [topic], waitMs: 8000 }));
    const got = (await Promise.all(waits)).flat();
    expect(got.map((r) => r.job.id)).toEqual([id]);
    const reservation = got[0]!;
    expect(reservation.job.reservedAt!).toBeGreaterThanOrEqual(job.runAt);
    expect(reservation.job.runAt).toBe(job.runAt);
    await clients[0]!.finish(id, reservation.token);
    const after = await clients[2]!.getWithHistory(id);
    expect(after.job.state).toBe('finished');
    expect(after.history.filter((h) => h.event === 'reserve')).toHaveLength(1);
  });
});
