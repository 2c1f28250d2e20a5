import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);
const FAR = 10 * 365 * 86_400_000;

/** What the beanstalkd protocol front end (src/beanstalkd/) needs of a store, part of the Store contract (store.contract.ts calls this). */
export function beanstalkdContract(test: ContractTest, context: () => ContractContext): void {
  test('release and bury with a priority store it; the ready order follows it', async () => {
    const { store, topic, job } = context();
    const a = job({ priority: 5 });
    const b = job({ priority: 10 });
    await store.pushMany([a, b], T0);
    const take = async (id: string, now: number): Promise<string> => {
      const r = await store.reserveJob(id, now);
      return r.ok ? r.value.token : '';
    };
    expect(await store.release(a.id, await take(a.id, T0), T0 + 1, { priority: 20 })).toMatchObject({
      ok: true,
      value: { priority: 20, state: 'ready' },
    });
    expect(await store.peekNext(topic, 'ready')).toMatchObject({ id: b.id });
    // With a delay too.
    expect(
      await store.release(b.id, await take(b.id, T0 + 2), T0 + 3, { runAt: T0 + 1000, priority: 1 }),
    ).toMatchObject({
      ok: true,
      value: { priority: 1, state: 'delayed' },
    });
    await store.promoteDue(T0 + 1000, 10);
    expect(await store.peekNext(topic, 'ready')).toMatchObject({ id: b.id, priority: 1 });
    expect(await store.bury(a.id, await take(a.id, T0 + 1002), T0 + 1003, { error: 'x', priority: -7 })).toMatchObject({
      ok: true,
      value: { priority: -7, state: 'dead' },
    });
    expect(await store.redrive({ ids: [a.id] }, T0 + 1004)).toBe(1);
    expect(await store.get(a.id)).toMatchObject({ priority: -7, state: 'ready' });
    // Without a priority, it stays.
    expect(await store.release(a.id, await take(a.id, T0 + 1005), T0 + 1006)).toMatchObject({
      ok: true,
      value: { priority: -7 },
    });
  });

  test('reserveJob reserves a ready, a delayed and a dead job by id; others are refused', async () => {
    const { store, topic, job } = context();
    const ready = job();
    const delayed = job({ delayMs: 60_000 });
    const dead = job();
    await store.pushMany([ready, delayed, dead], T0);
    const [rd] = (await store.reserve([topic], 1, T0, {})).reservations;
    const first = rd!.job.id === ready.id ? ready : dead;
    const second = first === ready ? dead : ready;
    expect(await store.bury(first.id, rd!.token, T0 + 1, { error: 'x' })).toMatchObject({ ok: true });

    const byId = await store.reserveJob(second.id, T0 + 2);
    expect(byId).toMatchObject({ ok: true, value: { job: { id: second.id, state: 'reserved', attempts: 1 } } });
    const fromDelayed = await store.reserveJob(delayed.id, T0 + 3, { ttrMs: 5000 });
    expect(fromDelayed).toMatchObject({
      ok: true,
      value: { job: { id: delayed.id, state: 'reserved', attempts: 1, runAt: T0 + 3 }, deadlineAt: T0 + 3 + 5000 },
    });
    const fromDead = await store.reserveJob(first.id, T0 + 4);
    expect(fromDead).toMatchObject({ ok: true, value: { job: { id: first.id, state: 'reserved', attempts: 1 } } });
    expect((await store.history(first.id)).slice(-2).map((h) => [h.event, h.state])).toEqual([
      ['redrive', 'ready'],
      ['reserve', 'reserved'],
    ]);
    expect((await store.history(delayed.id)).slice(-2).map((h) => [h.event, h.state])).toEqual([
      ['promote', 'ready'],
      ['reserve', 'reserved'],
    ]);
    // Each left its set: nothing is left to reserve or promote, and the counts agree.
    expect((await store.reserve([topic], 10, T0 + 5)).reservations).toEqual([]);
    expect((await store.promoteDue(T0 + FAR, 100)).count).toBe(0);
    const counts = (await store.stats()).find((s) => s.topic === topic)!.counts;
    expect(counts).toMatchObject({ ready: 0, delayed: 0, dead: 0, reserved: 3 });
    // The token works as reserve's does; a reserved or finished job, or an unknown id, is refused.
    const token = fromDelayed.ok ? fromDelayed.value.token : '';
    expect(await store.reserveJob(delayed.id, T0 + 6)).toEqual({ ok: false, reason: 'wrong_state', state: 'reserved' });
    expect(await store.finish(delayed.id, token, T0 + 7)).toMatchObject({ ok: true });
    expect(await store.reserveJob(delayed.id, T0 + 8)).toEqual({ ok: false, reason: 'wrong_state', state: 'finished' });
    expect(await store.reserveJob('never-pushed', T0 + 8)).toEqual({ ok: false, reason: 'not_found' });
  });

  test('peekNext answers the first job of a topic in each state, in that state’s order', async () => {
    const { store, topic, other, job } = context();
    expect(await store.peekNext(topic, 'ready')).toBeNull();
    // More jobs than any page: the answer must come from the order, not a window of the list.
    const many = Array.from({ length: 150 }, (_, i) => job({ priority: 100 + (i % 7), delayMs: -i }));
    const urgent = job({ priority: 3, delayMs: 0 });
    const soonest = job({ delayMs: 2000 });
    const later = Array.from({ length: 150 }, (_, i) => job({ delayMs: 5000 + i }));
    await store.pushMany([...many, urgent, soonest, ...later, job({ topic: other, priority: -100 })], T0);
    expect(await store.peekNext(topic, 'ready')).toMatchObject({ id: urgent.id, state: 'ready' });
    expect(await store.peekNext(topic, 'delayed')).toMatchObject({ id: soonest.id, state: 'delayed' });
    expect(await store.peekNext(topic, 'dead')).toBeNull();
    const picked = [urgent, many[0]!, many[7]!];
    const reserved = [];
    for (const j of picked) {
      const r = await store.reserveJob(j.id, T0 + 1);
      if (r.ok) reserved.push(r.value);
    }
    expect(await store.peekNext(topic, 'ready')).toMatchObject({ id: many[147]!.id, priority: 100 });
    for (const [i, r] of reserved.entries()) await store.bury(r.job.id, r.token, T0 + 10 - i, { error: null });
    expect(await store.peekNext(topic, 'dead')).toMatchObject({ id: many[7]!.id, state: 'dead' });
  });

  test('countReady counts a topic’s ready jobs below a priority, and only those', async () => {
    const { store, topic, other, job } = context();
    expect(await store.countReady(topic, 10)).toBe(0);
    const ready = [-5, 0, 9, 10, 11].map((priority) => job({ priority }));
    const due = job({ priority: 1, delayMs: 1000 });
    await store.pushMany([...ready, due, job({ topic: other, priority: -100 })], T0);
    expect(await store.countReady(topic, 10)).toBe(3);
    expect(await store.countReady(topic, 11)).toBe(4);
    expect(await store.countReady(topic, -32768)).toBe(0);
    expect(await store.countReady(other, 10)).toBe(1);
    // Reserved and dead jobs are not ready; a promoted one is.
    const r = await store.reserveJob(ready[0]!.id, T0 + 1);
    expect(r.ok).toBe(true);
    expect(await store.countReady(topic, 10)).toBe(2);
    if (r.ok) await store.bury(r.value.job.id, r.value.token, T0 + 2, { error: null });
    expect(await store.countReady(topic, 10)).toBe(2);
    await store.promoteDue(T0 + 2000, 100);
    expect(await store.countReady(topic, 10)).toBe(3);
  });

  test('purge drops the purged jobs’ numbers; a live job keeps its number', async () => {
    const { store, topic, job } = context();
    const done = job();
    const waiting = job({ delayMs: FAR });
    await store.pushMany([done, waiting], T0);
    const [nDone, nWaiting] = await store.numbers.numbersOf([done.id, waiting.id]);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    await store.finish(done.id, r!.token, T0 + 1);
    await store.purge(T0 + FAR, 100);
    expect(await store.get(done.id)).toBeNull();
    expect(await store.numbers.idOf(nDone!)).toBeNull();
    expect(await store.numbers.idOf(nWaiting!)).toBe(waiting.id);
    expect(await store.numbers.numbersOf([waiting.id])).toEqual([nWaiting]);
  });
}
