import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): reads: get, history, list (filters and pages) and stats. */
export function readsContract(test: ContractTest, context: () => ContractContext): void {
  test('get and history of an unknown id are empty', async () => {
    const { store } = context();
    expect(await store.get('never-pushed')).toBeNull();
    expect(await store.history('never-pushed')).toEqual([]);
  });

  test('list filters by topic, state, bizKey and tag, and pages without gaps or repeats', async () => {
    const { store, topic, other, job } = context();
    const jobs = Array.from({ length: 7 }, (_, i) =>
      job({
        id: `${topic}-l${i}`,
        delayMs: i % 2 ? 1000 : 0,
        bizKey: i < 3 ? 'biz-a' : 'biz-b',
        tag: i === 6 ? 'vip' : null,
      }),
    );
    await store.pushMany([...jobs, job({ topic: other, id: `${other}-l` })], T0);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ topic, limit: 3, cursor });
      expect(page.jobs.length).toBeLessThanOrEqual(3);
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(seen.sort()).toEqual(jobs.map((j) => j.id).sort());
    expect((await store.list({ topic, state: 'delayed', limit: 50 })).jobs).toHaveLength(3);
    expect((await store.list({ topic, bizKey: 'biz-a', limit: 50 })).jobs.map((j) => j.id).sort()).toEqual([
      `${topic}-l0`,
      `${topic}-l1`,
      `${topic}-l2`,
    ]);
    expect((await store.list({ topic, tag: 'vip', limit: 50 })).jobs.map((j) => j.id)).toEqual([`${topic}-l6`]);
  });

  test('stats counts jobs per topic and state, with the next due time', async () => {
    const { store, topic, other, job } = context();
    await store.pushMany([job({ delayMs: 500 }), job({ delayMs: 900 }), job(), job({ topic: other })], T0);
    await store.reserve([topic], 1, T0);
    const stats = await store.stats();
    const mine = stats.find((s) => s.topic === topic)!;
    expect(mine.counts).toMatchObject({ delayed: 2, ready: 0, reserved: 1 });
    expect(mine.nextDueAt).toBe(T0 + 500);
    expect(stats.find((s) => s.topic === other)!.counts.ready).toBe(1);
  });
}
