import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): the Store's parts: topic pauses and job numbers. */
export function storePartsContract(test: ContractTest, context: () => ContractContext): void {
  test('keeps topic pauses: pause, replace, list, resume', async () => {
    const { store, topic, other } = context();
    await store.pauses.pause(topic, null);
    await store.pauses.pause(other, T0 + 1000);
    expect((await store.pauses.list()).get(topic)).toBeNull();
    expect((await store.pauses.list()).get(other)).toBe(T0 + 1000);
    await store.pauses.pause(topic, T0 + 5);
    expect((await store.pauses.list()).get(topic)).toBe(T0 + 5);
    expect(await store.pauses.resume(topic)).toBe(true);
    expect(await store.pauses.resume(topic)).toBe(false);
    expect((await store.pauses.list()).has(topic)).toBe(false);
    await store.pauses.resume(other);
  });

  test('gives each id one stable job number, never reused', async () => {
    const { store, topic } = context();
    const [a, b] = await store.numbers.numbersOf([`${topic}-a`, `${topic}-b`]);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(a!);
    expect(await store.numbers.numbersOf([`${topic}-b`, `${topic}-a`, `${topic}-c`])).toEqual([
      b,
      a,
      expect.any(Number),
    ]);
    expect(await store.numbers.idOf(a!)).toBe(`${topic}-a`);
    expect(await store.numbers.idOf(0)).toBeNull();
  });

  test('numbers a batch in order of first appearance, a repeated id once, past one script call', async () => {
    const { store, topic } = context();
    const ids = Array.from({ length: 2500 }, (_, i) => `${topic}-n${i}`);
    const [known] = await store.numbers.numbersOf([ids[7]!]);
    const got = await store.numbers.numbersOf([...ids, ids[3]!]);
    expect(got[7]).toBe(known);
    expect(got[2500]).toBe(got[3]);
    const fresh = got.slice(0, 2500).filter((_, i) => i !== 7);
    expect(fresh.every((n, i) => i === 0 || n > fresh[i - 1]!)).toBe(true);
    expect(new Set(got.slice(0, 2500)).size).toBe(2500);
    expect(await store.numbers.idOf(got[2499]!)).toBe(ids[2499]);
    expect(await store.numbers.numbersOf([ids[2499]!, ids[0]!])).toEqual([got[2499], got[0]]);
  });
}
