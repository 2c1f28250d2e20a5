import { expect } from 'vitest';
import { RUN_NOW_REASON } from '../../store/store.js';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): runNow, an operator's promotion of a delayed job. */
export function runNowContract(test: ContractTest, context: () => ContractContext): void {
  test('runNow makes a delayed job ready at once and records it as a promotion', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 60_000, ttlMs: 30_000 });
    await store.pushMany([j], T0);
    const moved = await store.runNow(j.id, T0 + 5);
    expect(moved).toMatchObject({ ok: true, value: { state: 'ready', runAt: T0 + 5, readyAt: T0 + 5 } });
    expect(await store.get(j.id)).toMatchObject({ state: 'ready', runAt: T0 + 5 });
    const last = (await store.history(j.id)).at(-1);
    expect(last).toMatchObject({ at: T0 + 5, event: 'promote', state: 'ready', reason: RUN_NOW_REASON });
    const stats = (await store.stats()).find((s) => s.topic === topic);
    expect(stats?.counts).toMatchObject({ delayed: 0, ready: 1 });
    expect(stats?.nextDueAt ?? null).toBeNull();
    // Its ttl counts from the new due time.
    expect(await store.expireDue(T0 + 30_004, 10)).toEqual([]);
    const [r] = (await store.reserve([topic], 1, T0 + 6)).reservations;
    expect(r?.job.id).toBe(j.id);
  });

  test('runNow takes a job waiting for a retry, keeping its attempts and error', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 0 });
    await store.pushMany([j], T0);
    const [first] = (await store.reserve([topic], 1, T0)).reservations;
    await store.retry(j.id, first!.token, T0 + 1, { runAt: T0 + 600_000, error: 'boom' });
    expect(await store.runNow(j.id, T0 + 2)).toMatchObject({
      ok: true,
      value: { state: 'ready', attempts: 1, lastError: 'boom', runAt: T0 + 2 },
    });
    expect(await store.nextWakeAt()).toBeNull();
    const [again] = (await store.reserve([topic], 1, T0 + 3)).reservations;
    expect(again).toMatchObject({ job: { id: j.id, attempts: 2 } });
  });

  test('runNow leaves the other delayed jobs of the topic due as they were', async () => {
    const { store, job } = context();
    const [a, b] = [job({ delayMs: 1000 }), job({ delayMs: 2000 })];
    await store.pushMany([a!, b!], T0);
    await store.runNow(a!.id, T0 + 1);
    expect(await store.nextWakeAt()).toBe(T0 + 2000);
    expect((await store.promoteDue(T0 + 2000, 10)).count).toBe(1);
    expect(await store.get(b!.id)).toMatchObject({ state: 'ready' });
  });

  test('runNow refuses a job that is not delayed, and an unknown id, changing nothing', async () => {
    const { store, topic, job } = context();
    const ready = job({ delayMs: 0 });
    const held = job({ delayMs: 0 });
    await store.pushMany([held], T0);
    await store.reserve([topic], 1, T0);
    await store.pushMany([ready], T0);
    expect(await store.runNow(ready.id, T0 + 1)).toMatchObject({ ok: false, reason: 'wrong_state', state: 'ready' });
    expect(await store.runNow(held.id, T0 + 1)).toMatchObject({ ok: false, reason: 'wrong_state', state: 'reserved' });
    expect(await store.runNow(`${topic}-none`, T0 + 1)).toEqual({ ok: false, reason: 'not_found' });
    expect((await store.history(ready.id)).map((h) => h.event)).toEqual(['push']);
  });
}
