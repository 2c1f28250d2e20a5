import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/**
 * What a restore after a store loss needs of a store (journal/recovery/restore.ts), part of the Store contract
 * (store.contract.ts calls this): a lost reservation put back as kept, and job numbers given back.
 */
export function storeLossContract(test: ContractTest, context: () => ContractContext): void {
  test('restoreReservation puts a kept reservation on a ready or delayed job, or over the reservation it replaces; its holder settles it', async () => {
    const { store, topic, job } = context();
    const [one, two] = [job(), job()];
    const delayed = job({ delayMs: 3_600_000 });
    await store.pushMany([one, two, delayed], T0);
    // one of the two ready jobs was reserved by another since the loss: the kept reservation wins
    const [other] = (await store.reserve([topic], 1, T0 + 1)).reservations;
    const taken = other!.job.id === one.id ? one : two;
    const ready = taken === one ? two : one;
    const kept = (token: string) => ({
      token,
      reservedAt: T0 - 5000,
      deadlineAt: T0 + 25_000,
      attempts: 2,
      runAt: T0 - 6000,
    });
    // another holder's reservation is taken only when named as the one to replace (a reserve's, not handed out)
    expect(await store.restoreReservation(taken.id, kept('c'.repeat(24)), T0 + 2)).toMatchObject({
      ok: false,
      reason: 'token_mismatch',
    });
    expect(await store.restoreReservation(taken.id, kept('c'.repeat(24)), T0 + 2, 'd'.repeat(24))).toMatchObject({
      ok: false,
      reason: 'token_mismatch',
    });
    expect(await store.get(taken.id)).toMatchObject({ state: 'reserved', deadlineAt: other!.deadlineAt });
    for (const [id, token] of [
      [ready.id, 'a'.repeat(24)],
      [delayed.id, 'b'.repeat(24)],
      [taken.id, 'c'.repeat(24)],
    ] as const) {
      const back = await store.restoreReservation(id, kept(token), T0 + 2, id === taken.id ? other!.token : undefined);
      expect(back).toMatchObject({
        ok: true,
        value: { id, state: 'reserved', attempts: 2, runAt: T0 - 6000, deadlineAt: T0 + 25_000, reservedAt: T0 - 5000 },
      });
      // the same again changes nothing
      expect(await store.restoreReservation(id, kept(token), T0 + 3)).toMatchObject({
        ok: true,
        value: { state: 'reserved', deadlineAt: T0 + 25_000 },
      });
    }
    expect((await store.stats()).find((s) => s.topic === topic)!.counts).toMatchObject({
      ready: 0,
      delayed: 0,
      reserved: 3,
    });
    expect((await store.reserve([topic], 10, T0 + 4)).reservations).toEqual([]);
    expect(await store.finish(taken.id, other!.token, T0 + 5)).toMatchObject({ ok: false, reason: 'token_mismatch' });
    expect(await store.touch(delayed.id, 'b'.repeat(24), T0 + 6)).toMatchObject({ ok: true });
    expect(await store.finish(ready.id, 'a'.repeat(24), T0 + 7)).toMatchObject({
      ok: true,
      value: { state: 'finished', attempts: 2 },
    });
    // it lapses at its deadline under its kept token, like any reservation
    expect((await store.listLapsed(T0 + 25_000, 10)).map((l) => [l.id, l.token])).toEqual([[taken.id, 'c'.repeat(24)]]);
    const history = await store.history(taken.id);
    expect(history.at(-1)).toMatchObject({ event: 'restore', state: 'reserved', attempt: 2 });
  });

  test('restoreReservation refuses an ended job and answers not_found for an unknown one', async () => {
    const { store, topic, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    await store.finish(j.id, r!.token, T0 + 1);
    const kept = { token: 'd'.repeat(24), reservedAt: T0, deadlineAt: T0 + 30_000, attempts: 1, runAt: T0 };
    expect(await store.restoreReservation(j.id, kept, T0 + 2)).toMatchObject({ ok: false, reason: 'wrong_state' });
    expect(await store.get(j.id)).toMatchObject({ state: 'finished' });
    expect(await store.restoreReservation(`${topic}-none`, kept, T0 + 2)).toMatchObject({
      ok: false,
      reason: 'not_found',
    });
  });

  test('job numbers: assign says which it gave; restore gives ids their numbers back, never to another id', async () => {
    const { store, topic } = context();
    const [a, b] = await store.numbers.assign([`${topic}-a`, `${topic}-b`]);
    expect(a).toMatchObject({ given: true });
    expect(await store.numbers.assign([`${topic}-a`])).toEqual([{ number: a!.number, given: false }]);
    // `c` lost its number with the store, and was numbered anew since: restore gives it its own back
    const [lost] = await store.numbers.assign([`${topic}-c`]);
    const [since] = await store.numbers.assign([`${topic}-d`]);
    await store.numbers.restore([{ id: `${topic}-d`, number: lost!.number }]);
    await store.numbers.restore([{ id: `${topic}-c`, number: since!.number }]);
    expect(await store.numbers.numbersOf([`${topic}-c`, `${topic}-d`])).toEqual([since!.number, lost!.number]);
    expect(await store.numbers.idOf(lost!.number)).toBe(`${topic}-d`);
    expect(await store.numbers.idOf(since!.number)).toBe(`${topic}-c`);
    const [fresh] = await store.numbers.assign([`${topic}-e`]);
    expect([a!.number, b!.number, lost!.number, since!.number]).not.toContain(fresh!.number);
    expect(fresh!.number).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
  });
}
