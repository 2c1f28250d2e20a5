import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);
/** One token per 1000 s: no bucket refills during a test, whichever clock the store refills by. */
const SLOW = { perSecond: 0.001, burst: 3 };

/** Part of the Store contract (store.contract.ts runs it): topic settings and dispatch rate buckets. */
export function flowControlContract(test: ContractTest, context: () => ContractContext): void {
  test('keeps topic settings: put, replace, list, forget with empty settings', async () => {
    const { store, topic, other } = context();
    await store.topicSettings.put(topic, { rateLimit: { perSecond: 5, burst: 2 } });
    await store.topicSettings.put(other, { rateLimit: { perSecond: 0.5, burst: 1 } });
    expect((await store.topicSettings.list()).get(topic)).toEqual({ rateLimit: { perSecond: 5, burst: 2 } });
    await store.topicSettings.put(topic, { rateLimit: { perSecond: 7, burst: 1 } });
    expect((await store.topicSettings.list()).get(topic)).toEqual({ rateLimit: { perSecond: 7, burst: 1 } });
    await store.topicSettings.put(topic, {});
    expect((await store.topicSettings.list()).has(topic)).toBe(false);
    expect((await store.topicSettings.list()).get(other)).toEqual({ rateLimit: { perSecond: 0.5, burst: 1 } });
    await store.topicSettings.put(other, {});
  });

  test('a dispatch bucket starts full, gives at most its burst, then says when the next token comes', async () => {
    const { store, topic, other } = context();
    expect(await store.dispatchRates.take(topic, SLOW, 5, T0)).toEqual({ granted: 3, waitMs: expect.any(Number) });
    const empty = await store.dispatchRates.take(topic, SLOW, 1, T0);
    expect(empty.granted).toBe(0);
    expect(empty.waitMs).toBeGreaterThan(900_000); // a token every 1000 s
    expect(empty.waitMs).toBeLessThanOrEqual(1_000_000);
    // Buckets are per topic.
    expect((await store.dispatchRates.take(other, SLOW, 1, T0)).granted).toBe(1);
  });

  test('tokens given back are taken again, never past the burst', async () => {
    const { store, topic } = context();
    expect((await store.dispatchRates.take(topic, SLOW, 3, T0)).granted).toBe(3);
    await store.dispatchRates.giveBack(topic, SLOW, 2, T0);
    expect((await store.dispatchRates.take(topic, SLOW, 5, T0)).granted).toBe(2);
    await store.dispatchRates.giveBack(topic, SLOW, 50, T0);
    expect(await store.dispatchRates.take(topic, SLOW, 5, T0)).toMatchObject({ granted: 3 });
  });

  test('a dispatch bucket refills at its rate', async () => {
    const { store, topic } = context();
    // A million a second: a token back within a millisecond, by the store's clock (now, or Redis TIME).
    const fast = { perSecond: 1_000_000, burst: 1 };
    expect((await store.dispatchRates.take(topic, fast, 1, T0)).granted).toBe(1);
    let tries = 0;
    while ((await store.dispatchRates.take(topic, fast, 1, T0 + 1 + tries)).granted === 0) tries++;
    expect(tries).toBeLessThan(10_000);
  });
}
