import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): push, cancel and reschedule: a job enters the store, leaves it, or moves its due time. */
export function producersContract(test: ContractTest, context: () => ContractContext): void {
  test('push stores a delayed job and records it in history', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 5000, bizKey: 'order-1', tag: 'close' });
    const [result] = await store.pushMany([j], T0);
    expect(result!.created).toBe(true);
    expect(result!.job).toMatchObject({
      id: j.id,
      topic,
      state: 'delayed',
      runAt: T0 + 5000,
      attempts: 0,
      createdAt: T0,
      readyAt: null,
      bizKey: 'order-1',
      tag: 'close',
    });
    expect(JSON.parse(result!.job.body)).toEqual(JSON.parse(j.body));
    expect(await store.history(j.id)).toEqual([
      { at: T0, event: 'push', state: 'delayed', attempt: 0, node: expect.any(String), reason: null },
    ]);
  });

  test('push of a job already due makes it ready at once', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 0 });
    const [result] = await store.pushMany([j], T0);
    expect(result!.job).toMatchObject({ state: 'ready', readyAt: T0 });
  });

  test('push of an existing id returns the existing job unchanged', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 1000, body: '"first"' });
    await store.pushMany([j], T0);
    const [again] = await store.pushMany([{ ...j, body: '"second"', runAt: T0 + 9999 }], T0 + 10);
    expect(again!.created).toBe(false);
    expect(again!.job).toMatchObject({ body: '"first"', runAt: T0 + 1000, state: 'delayed' });
    // also within one batch, and for a terminal job
    const k = job();
    const results = await store.pushMany([k, { ...k, body: '"dup"' }], T0);
    expect(results.map((r) => r.created)).toEqual([true, false]);
    await store.cancel(k.id, T0);
    const [terminal] = await store.pushMany([k], T0 + 1);
    expect(terminal!.created).toBe(false);
    expect(terminal!.job.state).toBe('cancelled');
  });

  test("push of an existing id in another topic answers the holder, unchanged (the service's id conflict)", async () => {
    const { store, job } = context();
    const near = job({ topic: 'held.a', delayMs: 1000, body: '"theirs"' });
    // Far ahead too: a journaled pair holds it only in its journal, beyond the load horizon.
    const far = job({ topic: 'held.a', delayMs: 30 * 86_400_000, body: '"theirs"' });
    await store.pushMany([near, far], T0);
    const results = await store.pushMany(
      [near, far].map((j) => ({ ...j, topic: 'other.b', body: '"mine"' })),
      T0 + 10,
    );
    expect(results.map((r) => [r.created, r.job.topic, r.job.body])).toEqual([
      [false, 'held.a', '"theirs"'],
      [false, 'held.a', '"theirs"'],
    ]);
    for (const j of [near, far]) expect((await store.get(j.id))!.topic).toBe('held.a');
  });

  test('bodies keep every character and their size', async () => {
    const { store, job } = context();
    const body = JSON.stringify({ text: 'ünïcødé 你好 🚀 "quotes" \\ back', big: 'x'.repeat(200_000) });
    const j = job({ body });
    await store.pushMany([j], T0);
    expect((await store.get(j.id))!.body).toBe(body);
  });

  test('a ten-year delay is kept to the millisecond', async () => {
    const { store, job } = context();
    const runAt = T0 + 10 * 365 * 86_400_000 + 123;
    const j = job({ runAt });
    await store.pushMany([j], T0);
    expect((await store.get(j.id))!.runAt).toBe(runAt);
    expect((await store.promoteDue(runAt - 1, 100)).count).toBe(0);
  });

  test('cancel works from delayed, ready and reserved, and only from those', async () => {
    const { store, topic, job } = context();
    const d = job({ delayMs: 1000 });
    const r = job();
    const s = job();
    await store.pushMany([d, r, s], T0);
    const [reserved] = (await store.reserve([topic], 1, T0)).reservations;
    for (const id of [d.id, r.id, s.id]) {
      expect(await store.cancel(id, T0 + 1, { reason: 'no longer needed' })).toMatchObject({
        ok: true,
        value: { job: { state: 'cancelled', finishedAt: T0 + 1 } },
      });
    }
    expect(await store.cancel(d.id, T0 + 2)).toMatchObject({ ok: false, reason: 'wrong_state', state: 'cancelled' });
    expect(await store.cancel('nope', T0)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await store.finish(reserved!.job.id, reserved!.token, T0 + 3)).toMatchObject({
      ok: false,
      reason: 'wrong_state',
    });
    expect((await store.promoteDue(T0 + 5000, 10)).count).toBe(0);
    expect((await store.reserve([topic], 10, T0 + 5000)).reservations).toEqual([]);
    expect(await store.nextWakeAt()).toBeNull();
  });

  test('cancels made together (a bulk chunk, concurrent clients) each answer as alone, a repeat refused', async () => {
    const { store, topic, job } = context();
    const delayed = Array.from({ length: 30 }, (_, i) => job({ delayMs: 1000 + i * 60_000 }));
    const ready = Array.from({ length: 10 }, () => job());
    await store.pushMany([...delayed, ...ready], T0);
    const out = (await store.reserve([topic], 4, T0)).reservations.map((r) => r.job.id);
    const ids = [...delayed, ...ready].map((j) => j.id);
    // One turn: the same id twice, and one that does not exist.
    const answers = await Promise.all(
      [...ids, delayed[0]!.id, 'no-such-job'].map((id) => store.cancel(id, T0 + 1, { reason: 'together' })),
    );
    for (const [i, id] of ids.entries())
      expect(answers[i]).toMatchObject({
        ok: true,
        value: { job: { id, state: 'cancelled', finishedAt: T0 + 1 }, dispatched: out.includes(id) },
      });
    expect(answers[ids.length]).toMatchObject({ ok: false, reason: 'wrong_state', state: 'cancelled' });
    expect(answers[ids.length + 1]).toMatchObject({ ok: false, reason: 'not_found' });
    expect((await store.history(delayed[0]!.id)).map((h) => h.event)).toEqual(['push', 'cancel']);
    expect((await store.history(delayed[0]!.id))[1]!.reason).toBe('together');
    const counts = (await store.stats()).find((s) => s.topic === topic)!.counts;
    expect(counts).toMatchObject({ delayed: 0, ready: 0, reserved: 0, cancelled: 40 });
    expect(await store.nextWakeAt()).toBeNull();
    const due = await store.dueHistogram({ topic, from: T0, to: T0 + 86_400_000, bucketMs: 3_600_000 });
    expect(due.reduce((a, b) => a + b, 0)).toBe(0);
  });

  test('cancel says whether the job had gone out, with its attempts', async () => {
    const { store, topic, job } = context();
    const waiting = job({ delayMs: 1000 });
    const ready = job();
    await store.pushMany([waiting, ready], T0);
    const [out] = (await store.reserve([topic], 1, T0)).reservations;
    expect(out!.job.id).toBe(ready.id);
    expect(await store.cancel(waiting.id, T0 + 1)).toMatchObject({
      ok: true,
      value: { dispatched: false, job: { attempts: 0 } },
    });
    expect(await store.cancel(ready.id, T0 + 1)).toMatchObject({
      ok: true,
      value: { dispatched: true, job: { state: 'cancelled', attempts: 1 } },
    });
    // Tried once, back to wait for its retry: not out now, but attempts tells it ran before.
    const again = job();
    await store.pushMany([again], T0);
    const [r] = (await store.reserve([topic], 1, T0 + 2)).reservations;
    await store.retry(again.id, r!.token, T0 + 3, { runAt: T0 + 60_000, error: 'boom' });
    expect(await store.cancel(again.id, T0 + 4)).toMatchObject({
      ok: true,
      value: { dispatched: false, job: { attempts: 1 } },
    });
  });

  test('reschedule moves a waiting job; a past time makes it ready', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 10_000 });
    await store.pushMany([j], T0);
    expect(await store.reschedule(j.id, T0 + 2000, T0 + 1)).toMatchObject({
      ok: true,
      value: { state: 'delayed', runAt: T0 + 2000 },
    });
    expect(await store.nextWakeAt()).toBe(T0 + 2000);
    expect(await store.reschedule(j.id, T0, T0 + 2)).toMatchObject({
      ok: true,
      value: { state: 'ready', readyAt: T0 + 2 },
    });
    expect(await store.reschedule(j.id, T0 + 50_000, T0 + 3)).toMatchObject({
      ok: true,
      value: { state: 'delayed' },
    });
    await store.reschedule(j.id, T0, T0 + 4);
    const [r] = (await store.reserve([topic], 1, T0 + 5)).reservations;
    expect(await store.reschedule(j.id, T0 + 9, T0 + 6)).toMatchObject({
      ok: false,
      reason: 'wrong_state',
      state: 'reserved',
    });
    expect(r).toBeDefined();
  });
}
