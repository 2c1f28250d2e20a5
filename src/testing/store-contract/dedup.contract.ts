import { expect } from 'vitest';
import type { NewJob } from '../../core/job.js';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);
const WINDOW = 60_000;

/**
 * Part of the Store contract (store.contract.ts runs it): the dedup window (core/push-dedup.ts). Inside the
 * window a push with the topic's key answers the first job, whatever its state and its own id; after it, or
 * once that job is deleted, the next push makes a job and opens a new window.
 */
export function dedupContract(test: ContractTest, context: () => ContractContext): void {
  const keyed = (ctx: ContractContext, o: Parameters<ContractContext['job']>[0] = {}): NewJob =>
    ctx.job({ dedup: { key: 'invoice-7', windowMs: WINDOW }, ...o });

  test('dedup: a push inside the window answers the first job, even after it finished', async () => {
    const ctx = context();
    const { store, topic } = ctx;
    const first = keyed(ctx, { delayMs: 0 });
    const [made] = await store.pushMany([first], T0);
    expect(made).toMatchObject({ created: true });
    expect(made!.duplicate).toBeUndefined();
    const [dup] = await store.pushMany([keyed(ctx, { body: '"other"' })], T0 + 10);
    expect(dup).toMatchObject({ created: false, duplicate: true, job: { id: first.id, state: 'ready' } });
    const { reservations } = await store.reserve([topic], 1, T0 + 20);
    await store.finish(first.id, reservations[0]!.token, T0 + 30);
    const [late] = await store.pushMany([keyed(ctx)], T0 + WINDOW - 1);
    expect(late).toMatchObject({ created: false, duplicate: true, job: { id: first.id, state: 'finished' } });
    expect((await store.list({ topic, limit: 10 })).jobs.map((j) => j.id)).toEqual([first.id]);
    const history = await store.history(first.id);
    expect(history.map((h) => h.event)).toEqual(['push', 'reserve', 'finish']);
    // The key is in the push entry, where the console's job page finds it.
    expect(history[0]!.reason).toBe(`dedupKey=invoice-7 windowMs=${WINDOW}`);
  });

  test('dedup: after the window a push makes a new job, which opens a new window', async () => {
    const ctx = context();
    const first = keyed(ctx, { delayMs: 5000 });
    await ctx.store.pushMany([first], T0);
    const second = keyed(ctx, { delayMs: 5000 });
    const [made] = await ctx.store.pushMany([second], T0 + WINDOW);
    expect(made).toMatchObject({ created: true, job: { id: second.id } });
    const [dup] = await ctx.store.pushMany([keyed(ctx)], T0 + WINDOW + 1);
    expect(dup).toMatchObject({ created: false, duplicate: true, job: { id: second.id } });
    expect(await ctx.store.get(first.id)).toMatchObject({ state: 'delayed' });
  });

  test('dedup: topics do not share keys, and a push without the key is not deduplicated', async () => {
    const ctx = context();
    const mine = keyed(ctx);
    const theirs = keyed(ctx, { topic: ctx.other });
    const plain = ctx.job();
    const results = await ctx.store.pushMany([mine, theirs, plain], T0);
    expect(results.map((r) => r.created)).toEqual([true, true, true]);
    const [again] = await ctx.store.pushMany([keyed(ctx, { topic: ctx.other })], T0 + 1);
    expect(again).toMatchObject({ duplicate: true, job: { id: theirs.id, topic: ctx.other } });
  });

  test('dedup: a batch with two pushes of one key makes one job and answers it to both', async () => {
    const ctx = context();
    const a = keyed(ctx);
    const b = keyed(ctx);
    const results = await ctx.store.pushMany([a, ctx.job(), b], T0);
    expect(results.map((r) => [r.created, r.duplicate ?? false, r.job.id])).toEqual([
      [true, false, a.id],
      [true, false, results[1]!.job.id],
      [false, true, a.id],
    ]);
    expect(await ctx.store.get(b.id)).toBeNull();
    // Keys of one batch apart: each its own job, answered in the batch's order.
    const other = { key: 'invoice-8', windowMs: WINDOW };
    const [c, d, e] = [ctx.job({ dedup: other }), keyed(ctx), ctx.job({ dedup: other })];
    const mixed = await ctx.store.pushMany([c, d, e], T0 + 1);
    expect(mixed.map((r) => [r.created, r.job.id])).toEqual([
      [true, c.id],
      [false, a.id],
      [false, c.id],
    ]);
  });

  test('dedup: a push with the key and the id of a job of its topic answers that job, which the key then names', async () => {
    const ctx = context();
    const held = ctx.job();
    await ctx.store.pushMany([held], T0);
    const [kept] = await ctx.store.pushMany([keyed(ctx, { id: held.id })], T0 + 1);
    expect(kept).toMatchObject({ created: false, job: { id: held.id } });
    expect(kept!.duplicate).toBeUndefined();
    const [dup] = await ctx.store.pushMany([keyed(ctx)], T0 + 2);
    expect(dup).toMatchObject({ created: false, duplicate: true, job: { id: held.id } });
  });

  test('dedup: a job deleted inside the window frees its key', async () => {
    const ctx = context();
    const first = keyed(ctx, { delayMs: 0 });
    await ctx.store.pushMany([first], T0);
    await ctx.store.cancel(first.id, T0 + 1);
    expect(await ctx.store.deleteEndedMany([first.id])).toBe(1);
    // Past the settling time of a claim whose job is not there yet (store/dedup-claims.ts).
    const next = keyed(ctx);
    const [made] = await ctx.store.pushMany([next], T0 + 20_000);
    expect(made).toMatchObject({ created: true, job: { id: next.id } });
    const [dup] = await ctx.store.pushMany([keyed(ctx)], T0 + 20_001);
    expect(dup).toMatchObject({ duplicate: true, job: { id: next.id } });
  });
}
