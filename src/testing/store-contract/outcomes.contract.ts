import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/** Part of the Store contract (store.contract.ts runs it): what is kept after a job ends: the outcome a consumer reported, the job's own retention, deleteEndedMany. */
export function outcomesContract(test: ContractTest, context: () => ContractContext): void {
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
    expect((await store.retry(j.id, first!.token, T0 + 1, { runAt: T0 + 1, error: error.message })).ok).toBe(true);
    expect(await store.outcomeOf(j.id)).toEqual({ result: null, error, at: T0 + 1 });
    const [second] = (await store.reserve([j.topic], 1, T0 + 2)).reservations;
    // The earlier attempt's token no longer reports anything.
    expect(await store.recordOutcome(j.id, first!.token, { result: null, error: null }, T0 + 3)).toBe(false);
    await store.recordOutcome(j.id, second!.token, { result: null, error: { ...error, code: 'FINAL' } }, T0 + 3);
    await store.bury(j.id, second!.token, T0 + 3, { error: error.message });
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
      if (r.job.id === buried.id) await store.bury(r.job.id, r.token, T0 + 10, { error: 'broken' });
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
}
