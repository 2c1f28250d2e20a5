import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): the timer's calls: promoteDue, the ttl expiry, nextWakeAt and purge. */
export function timerContract(test: ContractTest, context: () => ContractContext): void {
  test('promoteDue moves due jobs only, at runAt and not a millisecond before', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 1000 });
    await store.pushMany([j], T0);
    expect((await store.promoteDue(T0 + 999, 100)).count).toBe(0);
    const promoted = await store.promoteDue(T0 + 1000, 100);
    expect(promoted.count).toBe(1);
    expect(promoted.topics).toEqual([topic]);
    expect(await store.get(j.id)).toMatchObject({ state: 'ready', readyAt: T0 + 1000 });
    expect((await store.history(j.id)).map((h) => h.event)).toEqual(['push', 'promote']);
  });

  test('promoteDue takes the earliest first and honours the limit', async () => {
    const { store, topic, job } = context();
    const jobs = [3, 1, 2].map((s) => job({ delayMs: s * 1000, id: `${topic}-p${s}` }));
    await store.pushMany(jobs, T0);
    expect((await store.promoteDue(T0 + 5000, 2)).count).toBe(2);
    expect((await store.get(`${topic}-p3`))!.state).toBe('delayed');
    expect((await store.get(`${topic}-p1`))!.state).toBe('ready');
    expect((await store.promoteDue(T0 + 5000, 2)).count).toBe(1);
  });

  test('promoteDue reports when each kind of scheduler work is next due', async () => {
    const { store, topic, job } = context();
    await store.pushMany([job({ delayMs: 1000 }), job({ delayMs: 0, ttlMs: 60_000, ttrMs: 5000 })], T0);
    const [held] = (await store.reserve([topic], 1, T0)).reservations;
    await store.pushMany([job({ delayMs: 0, ttlMs: 30_000 })], T0);
    const { next } = await store.promoteDue(T0, 10);
    expect(next).toEqual({ promoteAt: T0 + 1000, deadlineAt: held!.deadlineAt, expireAt: T0 + 30_000 });
  });

  test('a ready job pushed with a ttl is a wake-up at its expiry', async () => {
    const { store, job } = context();
    await store.pushMany([job({ ttlMs: 200 })], T0);
    expect(await store.nextWakeAt()).toBe(T0 + 200);
  });

  test('a ready job not reserved within its ttl expires, not before', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 1000, ttlMs: 500 });
    await store.pushMany([j], T0);
    await store.promoteDue(T0 + 1000, 10);
    expect(await store.nextWakeAt()).toBe(T0 + 1500);
    expect(await store.expireDue(T0 + 1499, 10)).toEqual([]);
    // The expired jobs come back by id and topic: the service emits one `expired` event for each.
    expect(await store.expireDue(T0 + 1500, 10)).toEqual([{ id: j.id, topic }]);
    expect(await store.get(j.id)).toMatchObject({ state: 'expired', finishedAt: T0 + 1500 });
    expect((await store.reserve([topic], 1, T0 + 1500)).reservations).toEqual([]);
  });

  test('nextWakeAt is the earliest due time, TTR deadline or expiry', async () => {
    const { store, topic, job } = context();
    expect(await store.nextWakeAt()).toBeNull();
    await store.pushMany([job({ delayMs: 9000 })], T0);
    expect(await store.nextWakeAt()).toBe(T0 + 9000);
    await store.pushMany([job({ ttrMs: 3000 })], T0);
    await store.reserve([topic], 1, T0);
    expect(await store.nextWakeAt()).toBe(T0 + 3000);
    await store.pushMany([job({ ttlMs: 100 })], T0);
    expect(await store.nextWakeAt()).toBe(T0 + 100);
  });

  test('purge deletes old terminal jobs with their history, never a live one', async () => {
    const { store, topic, job } = context();
    const done = job();
    const waiting = job({ delayMs: 365 * 86_400_000 });
    await store.pushMany([done, waiting], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    await store.finish(done.id, r!.token, T0 + 1);
    expect(await store.purge(T0 + 1, 100)).toBe(0);
    expect(await store.purge(T0 + 10 * 365 * 86_400_000, 100)).toBe(1);
    expect(await store.get(done.id)).toBeNull();
    expect(await store.history(done.id)).toEqual([]);
    expect((await store.get(waiting.id))!.state).toBe('delayed');
  });
}
