import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';
import type { NewJob } from '../../core/job.js';
import type { JobSelector } from '../../core/job-selector.js';
import type { BulkAction, BulkResult } from '../../store/bulk.js';
import type { JobRef, Store } from '../../store/store.js';

const T0 = Date.UTC(2026, 0, 1);

const selector = (s: Partial<JobSelector>): JobSelector => ({
  topic: null,
  bizKey: null,
  tag: null,
  state: null,
  dueFrom: null,
  dueTo: null,
  ...s,
});

/** Runs a bulk action to the end through its cursor; the sums of every call, and how many calls it took. */
async function bulkAll(
  store: Store,
  action: BulkAction,
  sel: JobSelector,
  limit: number,
  dryRun = false,
): Promise<{ matched: number; applied: number; calls: number; cancelled: JobRef[] }> {
  let cursor: string | null = null;
  const total = { matched: 0, applied: 0, calls: 0, cancelled: [] as JobRef[] };
  do {
    const r: BulkResult = await store.bulk({ action, selector: sel, limit, cursor, dryRun }, T0 + 1);
    expect(r.matched).toBeLessThanOrEqual(limit);
    total.matched += r.matched;
    total.applied += r.applied;
    total.cancelled.push(...r.cancelled);
    total.calls++;
    cursor = r.next;
  } while (cursor !== null);
  return total;
}

/** Outcomes, retention, bulk by selector and listings: part of the Store contract. */
/** Part of the Store contract (store.contract.ts runs it): bulk operations by selector: a bounded slice per call, continued by a cursor. */
export function bulkContract(test: ContractTest, context: () => ContractContext): void {
  test('bulk cancel by bizKey across topics over 10k jobs, a slice per call with a cursor; dryRun only counts', async () => {
    const { store, topic, other, job } = context();
    const bizKey = `order-42-${topic}`;
    const jobs: NewJob[] = [];
    for (let i = 0; i < 10_000; i++) {
      const mine = i % 2 === 0;
      jobs.push(
        job({ topic: i % 4 < 2 ? topic : other, bizKey: mine ? bizKey : `order-7-${topic}`, delayMs: 1000 + i }),
      );
    }
    for (let i = 0; i < jobs.length; i += 1000) await store.pushMany(jobs.slice(i, i + 1000), T0);
    const sel = selector({ bizKey });
    const dry = await bulkAll(store, { kind: 'cancel', reason: null }, sel, 1000, true);
    expect(dry).toMatchObject({ matched: 5000, applied: 0, cancelled: [] });
    expect(dry.calls).toBeGreaterThanOrEqual(5);
    expect((await store.list({ bizKey, state: 'delayed', limit: 1 })).jobs).toHaveLength(1);
    const done = await bulkAll(store, { kind: 'cancel', reason: 'order paid' }, sel, 1000);
    expect(done).toMatchObject({ matched: 5000, applied: 5000 });
    // Each cancelled job comes back once by id and topic, for its `cancelled` event.
    const mine = jobs.filter((j) => j.bizKey === bizKey);
    const byId = (a: JobRef, b: JobRef) => (a.id < b.id ? -1 : 1);
    expect(done.cancelled.sort(byId)).toEqual(mine.map((j) => ({ id: j.id, topic: j.topic })).sort(byId));
    const stats = await store.stats();
    const count = (t: string, s: 'cancelled' | 'delayed') => stats.find((x) => x.topic === t)?.counts[s] ?? 0;
    expect(count(topic, 'cancelled') + count(other, 'cancelled')).toBe(5000);
    expect(count(topic, 'cancelled')).toBe(2500);
    expect(count(topic, 'delayed') + count(other, 'delayed')).toBe(5000);
    // Again: nothing left to cancel.
    expect(await bulkAll(store, { kind: 'cancel', reason: null }, sel, 1000)).toMatchObject({ matched: 0 });
    const cancelled = jobs.find((j) => j.bizKey === bizKey)!;
    expect((await store.history(cancelled.id)).at(-1)).toMatchObject({ event: 'cancel', reason: 'order paid' });
  });

  test('bulk reschedule (to a time and by a shift), redrive and delete, by topic, tag, state and due range', async () => {
    const { store, topic, job } = context();
    const early = job({ delayMs: 1000, tag: 'a' });
    const late = job({ delayMs: 9000, tag: 'a' });
    const otherTag = job({ delayMs: 1000, tag: 'b' });
    await store.pushMany([early, late, otherTag], T0);
    const inRange = selector({ topic, tag: 'a', dueFrom: T0, dueTo: T0 + 5000 });
    expect(
      await store.bulk(
        { action: { kind: 'shift', shiftMs: 60_000 }, selector: inRange, limit: 100, cursor: null, dryRun: false },
        T0,
      ),
    ).toEqual({ matched: 1, applied: 1, next: null, cancelled: [] });
    expect((await store.get(early.id))?.runAt).toBe(T0 + 61_000);
    expect((await store.get(late.id))?.runAt).toBe(T0 + 9000);
    const tagged = selector({ topic, tag: 'a' });
    await store.bulk(
      { action: { kind: 'reschedule', runAt: T0 + 500 }, selector: tagged, limit: 100, cursor: null, dryRun: false },
      T0,
    );
    expect((await store.get(late.id))?.runAt).toBe(T0 + 500);
    expect((await store.get(otherTag.id))?.runAt).toBe(T0 + 1000);
    // Dead jobs back to ready, then ended ones deleted; states the action does not apply to are not matched.
    await store.promoteDue(T0 + 2000, 100);
    const [r] = (await store.reserve([topic], 1, T0 + 2000)).reservations;
    await store.bury(r!.job.id, r!.token, T0 + 2000, { error: 'x' });
    const dead = selector({ topic, state: 'dead' });
    expect(
      (
        await store.bulk(
          { action: { kind: 'redrive' }, selector: selector({ topic }), limit: 100, cursor: null, dryRun: true },
          T0 + 2001,
        )
      ).matched,
    ).toBe(1);
    expect(
      (
        await store.bulk(
          { action: { kind: 'redrive' }, selector: dead, limit: 100, cursor: null, dryRun: false },
          T0 + 2001,
        )
      ).applied,
    ).toBe(1);
    expect((await store.get(r!.job.id))?.state).toBe('ready');
    await store.cancel(r!.job.id, T0 + 2002);
    const del = await store.bulk(
      { action: { kind: 'delete' }, selector: selector({ topic }), limit: 100, cursor: null, dryRun: false },
      T0 + 2003,
    );
    expect(del).toMatchObject({ matched: 1, applied: 1 });
    expect(await store.get(r!.job.id)).toBeNull();
  });
}
