import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): the due-time and reserved listings, paged by cursor. */
export function listingsContract(test: ContractTest, context: () => ContractContext): void {
  test('listDue lists delayed jobs by due time within a range, paged by cursor through ties', async () => {
    const { store, topic, other, job } = context();
    const due = [5000, 1000, 3000, 3000, 3000, 9000, 20_000].map((d) => job({ delayMs: d }));
    await store.pushMany([...due, job({ topic: other, delayMs: 2000 }), job({ delayMs: 0 })], T0);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await store.listDue({ topic, from: T0 + 1000, to: T0 + 10_000, limit: 2, cursor });
      expect(page.jobs.length).toBeLessThanOrEqual(2);
      seen.push(...page.jobs.map((j) => j.id));
      if (page.next === null) break;
      cursor = page.next;
    }
    const expected = due
      .filter((j) => j.runAt < T0 + 10_000)
      .sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1))
      .map((j) => j.id);
    expect(seen).toEqual(expected);
    const all = await store.listDue({ from: T0, to: T0 + 3000, limit: 100 });
    expect(all.jobs.map((j) => j.runAt)).toEqual([T0 + 1000, T0 + 2000]);
    expect(all.next).toBeNull();
  });

  test('listDue pages through many jobs spread over many sets, with ties, as one ordered walk', async () => {
    const { store, topic, other, job } = context();
    // Half the jobs due at one instant, the rest on a coarse grid, so ties fill whole pages and cross them;
    // pushed in chunks so the Redis store spreads them over many delayed sets whose heads tie.
    const due = Array.from({ length: 900 }, (_, i) => job({ delayMs: i % 2 ? 1000 + ((i * 7919) % 20) * 100 : 1500 }));
    for (let i = 0; i < due.length; i += 100) await store.pushMany(due.slice(i, i + 100), T0);
    await store.pushMany([job({ topic: other, delayMs: 1000 })], T0);
    const byDue = (a: { runAt: number; id: string }, b: { runAt: number; id: string }) =>
      a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    for (const [from, to, limit] of [
      [T0, T0 + 10_000, 100],
      [T0 + 1500, T0 + 3000, 37],
      [T0, T0 + 1200, 100],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await store.listDue({ topic, from, to, limit, cursor });
        expect(page.jobs.length).toBeLessThanOrEqual(limit);
        seen.push(...page.jobs.map((j) => j.id));
        if (page.next === null) break;
        cursor = page.next;
      }
      const expected = due.filter((j) => j.runAt >= from && j.runAt < to).sort(byDue);
      expect(seen).toEqual(expected.map((j) => j.id));
    }
    const first = await store.listDue({ from: T0, to: T0 + 10_000, limit: 100 });
    expect(first.jobs.map((j) => j.id)).toEqual(
      [...due, ...(await store.listDue({ topic: other, from: T0, to: T0 + 10_000, limit: 1 })).jobs]
        .sort(byDue)
        .slice(0, 100)
        .map((j) => j.id),
    );
  });

  test('listReserved lists reservations by deadline with the node holding each', async () => {
    const { store, topic, other, job } = context();
    await store.pushMany([job(), job({ ttrMs: 5000 }), job({ ttrMs: 60_000 }), job({ topic: other })], T0);
    await store.reserve([topic, other], 4, T0);
    const page = await store.listReserved({ topic, limit: 2 });
    expect(page.reservations.map((r) => r.deadlineAt)).toEqual([T0 + 5000, T0 + 30_000]);
    expect(page.reservations[0]!.node).toEqual(expect.any(String));
    expect(page.reservations[0]!.job.state).toBe('reserved');
    const rest = await store.listReserved({ topic, limit: 2, cursor: page.next! });
    expect(rest.reservations.map((r) => r.deadlineAt)).toEqual([T0 + 60_000]);
    expect(rest.next).toBeNull();
  });
}
