import { describe, expect, it } from 'vitest';
import type { BindingStore } from '../store/binding-store.js';

/** A sink's settings as delivery would hand them over: JSON the store keeps as given. */
interface Sink {
  type: string;
  url: string;
  headers?: Record<string, string>;
}

const hook = (n: number): Sink => ({ type: 'webhook', url: `https://hooks.example/${n}`, headers: { 'x-n': `${n}` } });

/**
 * What every BindingStore must do (store/binding-store.ts): keep each topic's binding as given, list them
 * sorted by topic, and change its version on every write, seen by every store over the same data (other
 * delayq instances poll the version). `makePair` gives two stores over the same data, not open yet.
 */
export function bindingStoreContract(
  name: string,
  makePair: () => [BindingStore<Sink>, BindingStore<Sink>] | Promise<[BindingStore<Sink>, BindingStore<Sink>]>,
): void {
  describe(`BindingStore contract: ${name}`, () => {
    const topics = () => {
      const suffix = Math.random().toString(36).slice(2, 10);
      return [`a-${suffix}`, `b-${suffix}`] as const;
    };

    it('sets, gets, lists, replaces and deletes bindings, bumping the version on every write', async () => {
      const [store] = await makePair();
      const [a, b] = topics();
      await store.open();
      try {
        const v0 = await store.version();
        await store.set({ topic: b, sink: hook(1), updatedAt: 1 });
        await store.set({ topic: a, sink: hook(2), updatedAt: 2 });
        const v1 = await store.version();
        expect(v1).not.toBe(v0);
        expect(await store.get(a)).toEqual({ topic: a, sink: hook(2), updatedAt: 2 });
        expect(await store.get(`${a}-none`)).toBeNull();
        expect((await store.list()).map((x) => x.topic).filter((t) => t === a || t === b)).toEqual([a, b]);
        await store.set({ topic: a, sink: hook(3), updatedAt: 3 });
        expect((await store.get(a))!.sink).toEqual(hook(3));
        const v2 = await store.version();
        expect(v2).not.toBe(v1);
        expect(await store.delete(a)).toBe(true);
        expect(await store.version()).not.toBe(v2);
        expect(await store.delete(a)).toBe(false);
        expect((await store.list()).some((x) => x.topic === a)).toBe(false);
      } finally {
        await store.close();
      }
    });

    it('two stores over the same data see each other’s writes and version', async () => {
      const [first, second] = await makePair();
      const [a] = topics();
      await first.open();
      await second.open();
      try {
        const before = await second.version();
        await first.set({ topic: a, sink: hook(4), updatedAt: 4 });
        expect(await second.version()).not.toBe(before);
        expect(await second.get(a)).toEqual({ topic: a, sink: hook(4), updatedAt: 4 });
        await second.delete(a);
        expect(await first.get(a)).toBeNull();
      } finally {
        await first.close();
        await second.close();
      }
    });
  });
}
