import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): settling a reservation: touch, finish (one or many), retry, bury, release, redrive; tokens fence each. */
export function settleContract(test: ContractTest, context: () => ContractContext): void {
  test('touch extends the deadline; a stale or wrong token changes nothing', async () => {
    const { store, topic, job } = context();
    const j = job({ ttrMs: 1000 });
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    const touched = await store.touch(j.id, r!.token, T0 + 500);
    expect(touched).toMatchObject({ ok: true, value: { deadlineAt: T0 + 1500 } });
    expect(await store.touch(j.id, 'not-the-token', T0 + 600)).toMatchObject({ ok: false, reason: 'token_mismatch' });
    expect((await store.get(j.id))!.deadlineAt).toBe(T0 + 1500);
    expect(await store.touch('missing-id', r!.token, T0)).toMatchObject({ ok: false, reason: 'not_found' });
    expect(await store.touch(j.id, r!.token, T0 + 700, 10_000)).toMatchObject({
      ok: true,
      value: { deadlineAt: T0 + 10_700 },
    });
  });

  test('finish ends a reservation once; a repeat with the same token answers the job again', async () => {
    const { store, topic, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    expect(await store.finish(j.id, 'wrong', T0 + 1)).toMatchObject({ ok: false, reason: 'token_mismatch' });
    expect((await store.get(j.id))!.state).toBe('reserved');
    const first = await store.finish(j.id, r!.token, T0 + 2);
    expect(first).toMatchObject({ ok: true, value: { state: 'finished', finishedAt: T0 + 2 } });
    expect(first.ok && first.repeated).toBeFalsy();
    // The answer was lost and the client retries: the same finish is answered as done, nothing changes.
    const again = await store.finish(j.id, r!.token, T0 + 3);
    expect(again).toMatchObject({
      ok: true,
      repeated: true,
      value: { id: j.id, state: 'finished', finishedAt: T0 + 2, attempts: 1 },
    });
    expect(await store.finish(j.id, 'wrong', T0 + 4)).toMatchObject({
      ok: false,
      reason: 'wrong_state',
      state: 'finished',
    });
    expect((await store.history(j.id)).map((h) => `${h.event}:${h.state}`)).toEqual([
      'push:ready',
      'reserve:reserved',
      'finish:finished',
    ]);
  });

  test('finishMany settles each item as its own finish would, in order, a stale token refusing only its item', async () => {
    const { store, topic, job } = context();
    const jobs = [job(), job(), job(), job()];
    await store.pushMany(jobs, T0);
    const reserved = (await store.reserve([topic], 4, T0)).reservations;
    const tokenOf = (id: string) => reserved.find((r) => r.job.id === id)!.token;
    const [a, b, c, d] = jobs.map((j) => j.id) as [string, string, string, string];
    await store.finish(c, tokenOf(c), T0 + 1);
    const outcomes = await store.finishMany(
      [
        { id: a, token: tokenOf(a) },
        { id: b, token: 'stale' },
        { id: c, token: tokenOf(c) },
        { id: 'missing', token: 'x' },
        { id: d, token: tokenOf(d) },
      ],
      T0 + 2,
    );
    expect(outcomes).toMatchObject([
      { ok: true, value: { id: a, state: 'finished', finishedAt: T0 + 2 } },
      { ok: false, reason: 'token_mismatch' },
      { ok: true, repeated: true, value: { id: c, finishedAt: T0 + 1 } },
      { ok: false, reason: 'not_found' },
      { ok: true, value: { id: d, state: 'finished', finishedAt: T0 + 2 } },
    ]);
    expect(outcomes[0]!.ok && outcomes[0]!.repeated).toBeFalsy();
    expect((await store.get(b))!.state).toBe('reserved');
    expect((await store.history(a)).map((h) => `${h.event}:${h.state}`)).toEqual([
      'push:ready',
      'reserve:reserved',
      'finish:finished',
    ]);
    expect(await store.finishMany([], T0 + 3)).toEqual([]);
  });

  test('a repeated finish with a stale token stays refused', async () => {
    const { store, topic, job } = context();
    const j = job({ ttrMs: 1000 });
    await store.pushMany([j], T0);
    const [first] = (await store.reserve([topic], 1, T0)).reservations;
    await store.retry(j.id, first!.token, T0 + 1000, { runAt: T0 + 1000, error: 'TTR lapsed' });
    const [second] = (await store.reserve([topic], 1, T0 + 1001)).reservations;
    expect(await store.finish(j.id, second!.token, T0 + 1002)).toMatchObject({ ok: true });
    expect(await store.finish(j.id, first!.token, T0 + 1003)).toMatchObject({
      ok: false,
      reason: 'wrong_state',
      state: 'finished',
    });
    expect(await store.finish(j.id, second!.token, T0 + 1004)).toMatchObject({ ok: true, repeated: true });
    // Other transitions are not repeatable: a finished job refuses them whatever the token.
    expect(await store.touch(j.id, second!.token, T0 + 1005)).toMatchObject({ ok: false, reason: 'wrong_state' });
    expect(await store.bury(j.id, second!.token, T0 + 1005, { error: 'x' })).toMatchObject({
      ok: false,
      reason: 'wrong_state',
    });
  });

  test("a job re-delivered after its TTR lapsed refuses the first consumer's token", async () => {
    const { store, topic, job } = context();
    const j = job({ ttrMs: 1000 });
    await store.pushMany([j], T0);
    const [first] = (await store.reserve([topic], 1, T0)).reservations;
    expect(await store.listLapsed(T0 + 999, 10)).toEqual([]);
    const lapsed = await store.listLapsed(T0 + 1000, 10);
    expect(lapsed).toEqual([
      { id: j.id, topic, token: first!.token, attempts: 1, deadlineAt: T0 + 1000, retry: j.retry },
    ]);
    expect(await store.retry(j.id, first!.token, T0 + 1000, { runAt: T0 + 1000, error: 'TTR lapsed' })).toMatchObject({
      ok: true,
      value: { state: 'ready' },
    });
    const [second] = (await store.reserve([topic], 1, T0 + 1001)).reservations;
    expect(second!.job.attempts).toBe(2);
    expect(await store.finish(j.id, first!.token, T0 + 1002)).toMatchObject({ ok: false, reason: 'token_mismatch' });
    expect(await store.touch(j.id, first!.token, T0 + 1002)).toMatchObject({ ok: false, reason: 'token_mismatch' });
    expect(await store.finish(j.id, second!.token, T0 + 1003)).toMatchObject({ ok: true });
  });

  test('retry puts the job back to wait for its backoff, keeping the error', async () => {
    const { store, topic, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    const outcome = await store.retry(j.id, r!.token, T0 + 5, { runAt: T0 + 60_000, error: 'boom' });
    expect(outcome).toMatchObject({
      ok: true,
      value: { state: 'delayed', runAt: T0 + 60_000, lastError: 'boom', attempts: 1 },
    });
    expect(await store.nextWakeAt()).toBe(T0 + 60_000);
    expect(await store.retry(j.id, r!.token, T0 + 6, { runAt: T0, error: 'again' })).toMatchObject({
      ok: false,
      reason: 'wrong_state',
      state: 'delayed',
    });
    await store.promoteDue(T0 + 60_000, 10);
    const [again] = (await store.reserve([topic], 1, T0 + 60_000)).reservations;
    expect(again!.job.attempts).toBe(2);
    const h = await store.history(j.id);
    expect(h.find((e) => e.event === 'retry')).toMatchObject({ state: 'delayed', attempt: 1, reason: 'boom' });
  });

  test('bury makes a job dead; redrive brings it back ready with fresh attempts', async () => {
    const { store, topic, job } = context();
    const a = job();
    const b = job();
    await store.pushMany([a, b], T0);
    for (const r of (await store.reserve([topic], 2, T0)).reservations) {
      expect(await store.bury(r.job.id, r.token, T0 + 1, { error: 'fatal' })).toMatchObject({
        ok: true,
        value: { state: 'dead', lastError: 'fatal', finishedAt: T0 + 1 },
      });
    }
    expect(await store.redrive({ ids: [a.id, 'missing'] }, T0 + 2)).toBe(1);
    expect(await store.get(a.id)).toMatchObject({ state: 'ready', attempts: 0, finishedAt: null, runAt: T0 + 2 });
    expect(await store.redrive({ topic, limit: 10 }, T0 + 3)).toBe(1);
    expect((await store.get(b.id))!.state).toBe('ready');
    expect(await store.redrive({ ids: [a.id] }, T0 + 4)).toBe(0);
  });

  test('release returns a reservation to ready without counting the attempt', async () => {
    const { store, topic, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    expect(await store.release(j.id, r!.token, T0 + 1)).toMatchObject({
      ok: true,
      value: { state: 'ready', attempts: 0 },
    });
    const [again] = (await store.reserve([topic], 1, T0 + 2)).reservations;
    expect(again!.job.attempts).toBe(1);
  });

  test('release records its reason in the history: the store’s own, or the one given', async () => {
    const { store, topic, job } = context();
    const [a, b, c] = [job(), job(), job()];
    await store.pushMany([a, b, c], T0);
    const tokens = new Map((await store.reserve([topic], 3, T0)).reservations.map((r) => [r.job.id, r.token]));
    await store.release(a.id, tokens.get(a.id)!, T0 + 1);
    await store.release(b.id, tokens.get(b.id)!, T0 + 1, { reason: 'client gone' });
    await store.release(c.id, tokens.get(c.id)!, T0 + 1, { runAt: T0 + 500, priority: 3, reason: 'later, please' });
    const reasonOf = async (id: string) => (await store.history(id)).find((h) => h.event === 'release')?.reason;
    expect(await reasonOf(a.id)).toBe('consumer gone before delivery');
    expect(await reasonOf(b.id)).toBe('client gone');
    expect(await reasonOf(c.id)).toBe('later, please');
    expect(await store.get(c.id)).toMatchObject({ state: 'delayed', runAt: T0 + 500, priority: 3, attempts: 0 });
  });

  test('finish, touch, retry, bury and release of a delayed job, even one due far beyond any horizon, are refused as wrong_state', async () => {
    const { store, job } = context();
    const near = job({ delayMs: 5000 });
    const far = job({ delayMs: 40 * 86_400_000 });
    await store.pushMany([near, far], T0);
    for (const j of [near, far]) {
      const refusals = [
        await store.finish(j.id, 'no-token', T0 + 1),
        await store.touch(j.id, 'no-token', T0 + 1),
        await store.retry(j.id, 'no-token', T0 + 1, { runAt: T0 + 10, error: 'x' }),
        await store.bury(j.id, 'no-token', T0 + 1, { error: 'x' }),
        await store.release(j.id, 'no-token', T0 + 1),
      ];
      for (const refusal of refusals) expect(refusal).toEqual({ ok: false, reason: 'wrong_state', state: 'delayed' });
      expect(await store.get(j.id)).toMatchObject({ state: 'delayed' });
    }
  });

  test('release with a runAt delays the job until then, the attempt given back', async () => {
    const { store, topic, job } = context();
    const j = job();
    await store.pushMany([j], T0);
    const [r] = (await store.reserve([topic], 1, T0)).reservations;
    expect(await store.release(j.id, r!.token, T0 + 1, { runAt: T0 + 5000 })).toMatchObject({
      ok: true,
      value: { state: 'delayed', attempts: 0, runAt: T0 + 5000 },
    });
    expect((await store.reserve([topic], 1, T0 + 2)).reservations).toEqual([]);
    expect(await store.release(j.id, r!.token, T0 + 3, { runAt: T0 + 9000 })).toMatchObject({
      ok: false,
      reason: 'wrong_state',
    });
    await store.promoteDue(T0 + 5000, 10);
    const [again] = (await store.reserve([topic], 1, T0 + 5000)).reservations;
    expect(again!.job).toMatchObject({ id: j.id, attempts: 1 });
    // A runAt already due: ready at once.
    expect(await store.release(j.id, again!.token, T0 + 5001, { runAt: T0 + 5001 })).toMatchObject({
      ok: true,
      value: { state: 'ready', attempts: 0 },
    });
    expect((await store.history(j.id)).filter((h) => h.event === 'release').map((h) => h.state)).toEqual([
      'delayed',
      'ready',
    ]);
  });
}
