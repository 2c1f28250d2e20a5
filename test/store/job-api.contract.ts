import { expect } from 'vitest';
import type { NewJob } from '../../src/core/job.js';
import type { JobSelector } from '../../src/core/job-selector.js';
import type { BulkAction, BulkResult } from '../../src/store/bulk.js';
import type { JobRef, Store } from '../../src/store/store.js';
import type { aJob } from '../helpers/jobs.js';

const T0 = Date.UTC(2026, 0, 1);

interface Context {
  store: Store;
  topic: string;
  other: string;
  job: (o?: Parameters<typeof aJob>[0]) => NewJob;
}

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

/** The job API of issue 23 (outcomes, retention, bulk by selector, listings), part of the Store contract. */
export function jobApiContract(test: (title: string, fn: () => Promise<void>) => void, context: () => Context): void {
  test('a result reported with the live token shows once the job finished; a stale token is refused', async () => {
    const { store, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([j.topic], 1, T0)).reservations;
    expect(await store.recordOutcome(j.id, 'stale-token', { result: '{"x":1}', error: null }, T0 + 1)).toBe(false);
    expect(await store.recordOutcome(j.id, r!.token, { result: '{"paid":true}', error: null }, T0 + 1)).toBe(true);
    // Not finished yet: the result does not count.
    expect((await store.outcomeOf(j.id))?.result ?? null).toBeNull();
    expect((await store.finish(j.id, r!.token, T0 + 2)).ok).toBe(true);
    expect(await store.outcomeOf(j.id)).toEqual({ result: '{"paid":true}', error: null, at: T0 + 1 });
    // A repeated finish with the same token may report again.
    expect(await store.recordOutcome(j.id, r!.token, { result: '"again"', error: null }, T0 + 3)).toBe(true);
    expect((await store.outcomeOf(j.id))?.result).toBe('"again"');
    expect(await store.outcomeOf('no-such-job')).toBeNull();
  });

  test('a structured error is kept through retry and bury; a result of an unfinished attempt never shows', async () => {
    const { store, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [first] = (await store.reserve([j.topic], 1, T0)).reservations;
    const error = { message: 'smtp timeout', code: 'SMTP_TIMEOUT', details: '{"host":"mx1"}' };
    await store.recordOutcome(j.id, first!.token, { result: '"half"', error }, T0 + 1);
    expect((await store.retry(j.id, first!.token, T0 + 1, T0 + 1, error.message)).ok).toBe(true);
    expect(await store.outcomeOf(j.id)).toEqual({ result: null, error, at: T0 + 1 });
    const [second] = (await store.reserve([j.topic], 1, T0 + 2)).reservations;
    // The earlier attempt's token no longer reports anything.
    expect(await store.recordOutcome(j.id, first!.token, { result: null, error: null }, T0 + 3)).toBe(false);
    await store.recordOutcome(j.id, second!.token, { result: null, error: { ...error, code: 'FINAL' } }, T0 + 3);
    await store.bury(j.id, second!.token, T0 + 3, error.message);
    expect((await store.outcomeOf(j.id))?.error?.code).toBe('FINAL');
    // Deleted with the job.
    expect(await store.deleteEndedMany([j.id])).toBe(1);
    expect(await store.outcomeOf(j.id)).toBeNull();
    expect(await store.get(j.id)).toBeNull();
  });

  test('retention: keep none, keep for a while, or the store-wide retention; per ending', async () => {
    const { store, job } = context();
    const none = job();
    const brief = job();
    const untouched = job();
    const buried = job();
    await store.pushMany([none, brief, untouched, buried], T0);
    await store.setRetentionMany([none.id], { finishedMs: 0, deadMs: null }, T0);
    await store.setRetentionMany([brief.id, buried.id], { finishedMs: 5000, deadMs: 0 }, T0);
    const rs = (await store.reserve([none.topic], 4, T0)).reservations;
    for (const r of rs) {
      if (r.job.id === buried.id) await store.bury(r.job.id, r.token, T0 + 10, 'broken');
      else await store.finish(r.job.id, r.token, T0 + 10);
    }
    expect((await store.purgeRetained(T0 + 9, 100)).length).toBe(0);
    expect((await store.purgeRetained(T0 + 10, 100)).length).toBe(2);
    expect(await store.get(none.id)).toBeNull();
    expect(await store.get(buried.id)).toBeNull();
    expect((await store.purgeRetained(T0 + 5009, 100)).length).toBe(0);
    expect(await store.get(brief.id)).not.toBeNull();
    expect((await store.purgeRetained(T0 + 5010, 100)).length).toBe(1);
    expect(await store.get(brief.id)).toBeNull();
    expect(await store.history(brief.id)).toEqual([]);
    // No retention of its own: left to purge.
    expect((await store.purgeRetained(T0 + 86_400_000, 100)).length).toBe(0);
    expect((await store.get(untouched.id))?.state).toBe('finished');
  });

  test('deleteEndedMany deletes terminal jobs only', async () => {
    const { store, job } = context();
    const waiting = job({ delayMs: 1000 });
    const cancelled = job();
    await store.pushMany([waiting, cancelled], T0);
    await store.cancel(cancelled.id, T0);
    expect(await store.deleteEndedMany([waiting.id, cancelled.id, 'missing'])).toBe(1);
    expect((await store.get(waiting.id))?.state).toBe('delayed');
    expect(await store.get(cancelled.id)).toBeNull();
  });

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
    await store.bury(r!.job.id, r!.token, T0 + 2000, 'x');
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
