import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ServiceState } from '../../src/service/service-state.js';

/** A call whose end the test decides. */
function pending(): { promise: Promise<void>; resolve(): void; reject(err: Error): void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ServiceState', () => {
  it('closing resolves only once every admitted call has settled, a rejected one included', async () => {
    const state = new ServiceState();
    state.opened();
    const first = pending();
    const second = pending();
    const calls = [state.run(() => first.promise), state.run(() => second.promise).catch(() => 'rejected')];
    let closed = false;
    const closing = state.closing().then(() => (closed = true));
    await expect(state.run(() => Promise.resolve(1))).rejects.toMatchObject({ code: 'E_SHUTTING_DOWN' });
    await turn();
    expect(closed).toBe(false);
    first.resolve();
    await turn();
    expect(closed).toBe(false);
    second.reject(new Error('store gone'));
    await closing;
    expect(await Promise.all(calls)).toEqual([undefined, 'rejected']);
  });

  it('every caller of closing is answered, not only the last', async () => {
    const state = new ServiceState();
    state.opened();
    const call = pending();
    void state.run(() => call.promise);
    const answered: string[] = [];
    const both = [
      state.closing().then(() => answered.push('first')),
      state.closing().then(() => answered.push('second')),
    ];
    await turn();
    expect(answered).toEqual([]);
    call.resolve();
    await Promise.all(both);
    expect(answered).toEqual(['first', 'second']);
  });

  it('closing with nothing in flight resolves at once; calls before open are refused', async () => {
    const state = new ServiceState();
    await expect(state.run(() => Promise.resolve(1))).rejects.toMatchObject({ code: 'E_SHUTTING_DOWN' });
    state.opened();
    expect(await state.run(() => Promise.resolve(2))).toBe(2);
    await state.closing();
    expect(state.phase).toBe('closing');
  });
});
