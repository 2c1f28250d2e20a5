import { expect } from 'vitest';
import type { Store } from '../../store/store.js';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);
/** Enough jobs that a read of them all shows: far more than any page, counter row or index head. */
const BACKLOG = 20_000;
const DAY_MS = 86_400_000;
/** The most a read that does not grow with the backlog may touch here (2 topics, up to 8 partitions). */
const MOST_TOUCHED = 200;
/** A job list page of 10: each of up to 8 partitions reads its next 11 ids and their records, and a few index heads. */
const LIST_PAGE_TOUCHED = 8 * 3 * 11;

/**
 * How much of the stored data a read touched, as the store's own instruments tell it: stored entries read
 * (a whole-key read counts the key's size), or a full scan of a table that grows with the jobs counted as
 * that table's rows. Each store's test file supplies its own (ContractOptions.readCost).
 */
export interface ReadCost {
  measure<T>(read: () => Promise<T>): Promise<{ value: T; touched: number }>;
}

export const READ_COST_TEST = `stats, get, a topic's, a bizKey's and the due listing's first pages touch pages, not a ${BACKLOG}-job backlog`;

/**
 * Part of the Store contract (store.contract.ts runs it): the reads an operator makes on a large backlog —
 * stats (and the topic list built from them), a job by id, a topic's first page of jobs in id order (all,
 * or of one state), a bizKey's first page, the first page of a topic's delayed jobs by due time — touch about what they
 * answer, never the whole backlog. Skipped, with the reason, for a store given no ReadCost.
 */
export function readCostContract(
  test: ContractTest,
  context: () => ContractContext,
  readCost: ((store: Store) => ReadCost) | undefined,
): void {
  test(READ_COST_TEST, async () => {
    const { store, topic, other, job } = context();
    const cost = readCost!(store);
    const topicIds: string[] = [];
    for (let i = 0; i < BACKLOG; i += 1000) {
      const batch = Array.from({ length: 1000 }, (_, k) => {
        const n = i + k;
        return job({
          topic: n % 2 ? other : topic,
          delayMs: DAY_MS + ((n * 7919) % (30 * DAY_MS)),
          bizKey: `b-${n % 500}`,
        });
      });
      topicIds.push(...batch.filter((j) => j.topic === topic).map((j) => j.id));
      await store.pushMany(batch, T0);
    }
    const first = job({ topic, delayMs: 1000, bizKey: 'wanted' });
    await store.pushMany([first], T0);
    topicIds.push(first.id);
    const firstTen = topicIds.sort().slice(0, 10);

    const stats = await cost.measure(() => store.stats());
    const mine = stats.value.find((t) => t.topic === topic);
    expect(mine?.counts.delayed).toBe(BACKLOG / 2 + 1);
    expect(mine?.nextDueAt).toBe(T0 + 1000);
    expect(stats.touched).toBeLessThanOrEqual(MOST_TOUCHED);

    const got = await cost.measure(() => store.get(first.id));
    expect(got.value?.id).toBe(first.id);
    expect(got.touched).toBeLessThanOrEqual(MOST_TOUCHED);
    // the instrument sees the store's reads at all (one that sees nothing would pass every bound here)
    expect(stats.touched + got.touched).toBeGreaterThan(0);

    // The topic's first page in id order: its ten lowest ids, read from an index, not from every job.
    const byTopic = await cost.measure(() => store.list({ topic, limit: 10 }));
    expect(byTopic.value.jobs.map((j) => j.id)).toEqual(firstTen);
    expect(byTopic.value.next).not.toBeNull();
    expect(byTopic.touched).toBeLessThanOrEqual(LIST_PAGE_TOUCHED);
    const delayed = await cost.measure(() => store.list({ topic, state: 'delayed', limit: 10 }));
    expect(delayed.value.jobs.map((j) => j.id)).toEqual(firstTen);
    expect(delayed.touched).toBeLessThanOrEqual(LIST_PAGE_TOUCHED);

    const page = await cost.measure(() => store.list({ bizKey: 'wanted', limit: 10 }));
    expect(page.value.jobs.map((j) => j.id)).toEqual([first.id]);
    expect(page.touched).toBeLessThanOrEqual(MOST_TOUCHED);

    const due = await cost.measure(() => store.listDue({ topic, from: T0, to: T0 + 60 * DAY_MS, limit: 10 }));
    expect(due.value.jobs[0]?.id).toBe(first.id);
    expect(due.value.jobs).toHaveLength(10);
    // A page from each partition's delayed sets nearest the page's times: more than one page, far less than
    // the backlog (reading every set's first page, as before, touched 3-13k here).
    expect(due.touched).toBeLessThanOrEqual(BACKLOG / 10);
  });
}
