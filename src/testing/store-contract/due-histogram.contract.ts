import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const DAY = 86_400_000;

/** The due-time histogram read, part of the Store contract (store.contract.ts calls this inside its describe). */
export function dueHistogramContract(test: ContractTest, context: () => ContractContext): void {
  test('dueHistogram counts delayed jobs per due-time bucket, by topic or over all', async () => {
    const { store, topic, other, job } = context();
    await store.pushMany(
      [
        job({ delayMs: 0 }), // ready: not counted
        job({ delayMs: 30_000 }),
        job({ delayMs: MINUTE - 1 }),
        job({ delayMs: MINUTE }),
        job({ delayMs: 5 * MINUTE + 1 }),
        job({ delayMs: 10 * MINUTE }), // at `to`: outside
        job({ topic: other, delayMs: 90_000 }),
        job({ delayMs: 40 * DAY }), // far future (beyond a journal's horizon)
      ],
      T0,
    );
    const mine = await store.dueHistogram({ topic, from: T0, to: T0 + 10 * MINUTE, bucketMs: MINUTE });
    expect(mine).toEqual([2, 1, 0, 0, 0, 1, 0, 0, 0, 0]);
    const all = await store.dueHistogram({ from: T0, to: T0 + 10 * MINUTE, bucketMs: MINUTE });
    // Other tests' jobs on a shared server may add to "all"; this test's own are there at least.
    expect(all[1]).toBeGreaterThanOrEqual(2);
    const month = await store.dueHistogram({ topic, from: T0, to: T0 + 60 * DAY, bucketMs: DAY });
    expect(month[0]).toBe(5);
    expect(month[40]).toBe(1);
    expect(month.reduce((a, b) => a + b, 0)).toBe(6); // the ready one is not counted
  });

  test('dueHistogram leaves out jobs that are no longer delayed', async () => {
    const { store, topic, job } = context();
    const [a, b] = [job({ delayMs: 2 * MINUTE }), job({ delayMs: 2 * MINUTE + 5 })];
    await store.pushMany([a!, b!], T0);
    await store.cancel(a!.id, T0 + 1);
    expect(await store.dueHistogram({ topic, from: T0, to: T0 + 3 * MINUTE, bucketMs: MINUTE })).toEqual([0, 0, 1]);
    await store.promoteDue(T0 + 3 * MINUTE, 100);
    expect(await store.dueHistogram({ topic, from: T0, to: T0 + 3 * MINUTE, bucketMs: MINUTE })).toEqual([0, 0, 0]);
  });
}
