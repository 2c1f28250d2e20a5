import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): reserve: the ready order across topics, the ttl on the way out, tokens, attempts and deadlines. */
export function reserveContract(test: ContractTest, context: () => ContractContext): void {
  test('reserve takes due jobs promoteDue has not moved only when the store says so (reserveTakesDue)', async () => {
    const { store, topic, job } = context();
    const j = job({ delayMs: 10 });
    await store.pushMany([j], T0);
    const got = (await store.reserve([topic], 1, T0 + 20)).reservations;
    expect(got.map((r) => r.job.id)).toEqual(store.capabilities.reserveTakesDue ? [j.id] : []);
    expect((await store.get(j.id))!.state).toBe(store.capabilities.reserveTakesDue ? 'reserved' : 'delayed');
  });

  test('reserve orders by priority, then due time, across the topics asked for only', async () => {
    const { store, topic, other, job } = context();
    await store.pushMany(
      [
        job({ id: `${topic}-late`, delayMs: 0, runAt: T0 }),
        job({ id: `${topic}-early-low`, runAt: T0 - 100, priority: 5 }),
        job({ id: `${topic}-early-high`, runAt: T0 - 100, priority: 1 }),
        job({ id: `${other}-x`, topic: other, runAt: T0 - 50 }),
        job({ id: `${topic}-future`, delayMs: 60_000 }),
      ],
      T0,
    );
    const first = (await store.reserve([topic], 10, T0)).reservations;
    expect(first.map((r) => r.job.id)).toEqual([`${topic}-late`, `${topic}-early-high`, `${topic}-early-low`]);
    const both = (await store.reserve([topic, other], 10, T0)).reservations;
    expect(both.map((r) => r.job.id)).toEqual([`${other}-x`]);
    expect((await store.reserve([topic, other], 10, T0)).reservations).toEqual([]);
  });

  test('a reserve over several topics takes the first jobs of them all in ready order', async () => {
    const { store, topic, other, job } = context();
    const third = `${other}-3`;
    // 3 topics × 20 ready jobs each round: priorities interleave across topics, so no topic comes as one block.
    const round = async (tag: string) => {
      const jobs = [topic, other, third].flatMap((t, ti) =>
        Array.from({ length: 20 }, (_, i) =>
          job({ id: `${t}-${tag}${String(i).padStart(2, '0')}`, topic: t, runAt: T0 - 1000 + ti, priority: i % 4 }),
        ),
      );
      await store.pushMany(jobs, T0);
      return jobs.sort((a, b) => a.priority - b.priority || a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
    };
    const byOrder = (ids: string[], order: string[]) => [...ids].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    // A repeated topic changes nothing.
    const asked = [third, topic, other, topic];
    const all = (await round('a')).map((j) => j.id);
    expect((await store.reserve(asked, 100, T0 + 1)).reservations.map((r) => r.job.id)).toEqual(all);
    // One job at a time, then a batch, then the rest: each call in ready order, every job once. (Across
    // calls a partitioned store may serve a job before a slightly earlier one of another partition.)
    const order = (await round('b')).map((j) => j.id);
    const got: string[] = [];
    for (const count of [1, 1, 30, 100]) {
      const ids = (await store.reserve(asked, count, T0 + 1)).reservations.map((r) => r.job.id);
      expect(ids.length).toBe(Math.min(count, 60 - got.length));
      expect(ids).toEqual(byOrder(ids, order));
      got.push(...ids);
    }
    expect(byOrder(got, order)).toEqual(order);
  });

  test('a backlog is served by priority first, then due time, then arrival', async () => {
    const { store, topic, other, job } = context();
    await store.pushMany([job({ id: `${topic}-c`, runAt: T0 - 50 })], T0);
    await store.pushMany(
      [
        job({ id: `${topic}-a`, runAt: T0 - 100, priority: 100 }),
        job({ id: `${topic}-b`, runAt: T0 - 99, priority: -100 }),
        // due with c, but pushed after it: served after c although its id sorts first
        job({ id: `${topic}-0`, runAt: T0 - 50 }),
        job({ id: `${topic}-d`, runAt: T0 - 60 }),
        job({ id: `${other}-y`, topic: other, runAt: T0 - 10, priority: -5 }),
      ],
      T0 + 1,
    );
    const mine = (await store.reserve([topic], 10, T0 + 2)).reservations;
    expect(mine.map((r) => r.job.id)).toEqual([`${topic}-b`, `${topic}-d`, `${topic}-c`, `${topic}-0`, `${topic}-a`]);
    const theirs = (await store.reserve([other], 10, T0 + 2)).reservations;
    expect(theirs.map((r) => r.job.id)).toEqual([`${other}-y`]);
  });

  test('due jobs promoted later still come by priority before earlier ready ones', async () => {
    const { store, topic, job } = context();
    await store.pushMany([job({ id: `${topic}-low`, runAt: T0, priority: 10 })], T0);
    await store.pushMany([job({ id: `${topic}-urgent`, delayMs: 10, priority: -10 })], T0);
    await store.promoteDue(T0 + 10, 100);
    const got = (await store.reserve([topic], 10, T0 + 10)).reservations;
    expect(got.map((r) => r.job.id)).toEqual([`${topic}-urgent`, `${topic}-low`]);
  });

  test('reserve never hands out a ready job past its ttl: it expires it, and answers it as expireDue does', async () => {
    const { store, topic, job } = context();
    const stale = job({ ttlMs: 200 });
    const fresh = job({ ttlMs: 10_000 });
    await store.pushMany([stale, fresh], T0);
    // Nothing ran expireDue: reserve itself must not hand the stale job out.
    const { reservations: got, expired } = await store.reserve([topic], 10, T0 + 250);
    expect(got.map((r) => r.job.id)).toEqual([fresh.id]);
    // By id and topic, for the service's `expired` event (the timer will not meet this job again).
    expect(expired).toEqual([{ id: stale.id, topic }]);
    expect(await store.expireDue(T0 + 250, 10)).toEqual([]);
    expect(await store.get(stale.id)).toMatchObject({ state: 'expired', finishedAt: T0 + 250 });
    expect((await store.history(stale.id)).map((h) => `${h.event}:${h.state}`)).toEqual([
      'push:ready',
      'expire:expired',
    ]);
    expect(await store.reserve([topic], 10, T0 + 300)).toEqual({ reservations: [], expired: [] });
    const stats = (await store.stats()).find((s) => s.topic === topic)!;
    expect(stats.counts).toMatchObject({ ready: 0, expired: 1, reserved: 1 });
  });

  test('reserve never hands out a due delayed job past its ttl, promoted or not', async () => {
    const { store, topic, job } = context();
    const a = job({ delayMs: 1000, ttlMs: 200 });
    await store.pushMany([a], T0);
    expect((await store.reserve([topic], 10, T0 + 1300)).reservations).toEqual([]);
    await store.promoteDue(T0 + 1300, 100);
    expect((await store.reserve([topic], 10, T0 + 1300)).reservations).toEqual([]);
    expect((await store.get(a.id))!.state).toBe('expired');
  });

  test('reserve stamps a token, an attempt and the TTR deadline', async () => {
    const { store, topic, job } = context();
    const j = job({ ttrMs: 5000 });
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0 + 10)).reservations;
    expect(r!.token).toEqual(expect.any(String));
    expect(r!.deadlineAt).toBe(T0 + 10 + 5000);
    expect(r!.job).toMatchObject({ state: 'reserved', attempts: 1, reservedAt: T0 + 10, deadlineAt: T0 + 5010 });
    const k = job();
    await store.pushMany([k], T0);
    const [s] = (await store.reserve([topic], 1, T0, { ttrMs: 777 })).reservations;
    expect(s!.deadlineAt).toBe(T0 + 777);
    expect(s!.token).not.toBe(r!.token);
  });

  test('reserve honours count', async () => {
    const { store, topic, job } = context();
    await store.pushMany(
      [1, 2, 3, 4, 5].map(() => job()),
      T0,
    );
    expect((await store.reserve([topic], 2, T0)).reservations).toHaveLength(2);
    expect((await store.reserve([topic], 10, T0)).reservations).toHaveLength(3);
  });
}
