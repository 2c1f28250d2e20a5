import { expect } from 'vitest';
import type { ContractContext, ContractTest } from './contract-context.js';

const T0 = Date.UTC(2026, 0, 1);

/**
 * Part of the Store contract (store.contract.ts runs it): upsert and debounce, a push whose id a waiting job of
 * its topic holds replaces or extends that job (core/push-on-exists.ts), or keeps it when it is reserved or ended.
 */
export function upsertContract(test: ContractTest, context: () => ContractContext): void {
  test('upsert: replace gives a delayed job the body, due time and priority of the push', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 1000, body: '"first"', tag: 'close', bizKey: 'order-1' });
    await store.pushMany([j], T0);
    const second = JSON.stringify('ü'.repeat(40_000)); // past 64 KiB of UTF-8: the longest string header
    const again = { ...j, body: second, runAt: T0 + 5000, priority: 7, onExists: { mode: 'replace' as const } };
    const [result] = await store.pushMany([again], T0 + 10);
    expect(result).toMatchObject({ created: false, change: 'replaced' });
    expect(result!.job).toMatchObject({ body: second, runAt: T0 + 5000, priority: 7, state: 'delayed' });
    const stored = { body: second, runAt: T0 + 5000, priority: 7, createdAt: T0, tag: 'close', bizKey: 'order-1' };
    expect(await store.get(j.id)).toMatchObject(stored);
    expect((await store.history(j.id)).map((h) => [h.event, h.state, h.reason])).toEqual([
      ['push', 'delayed', null],
      ['replace', 'delayed', `runAt=${T0 + 5000}`],
    ]);
    // The job fires once, at its new due time, with its new body.
    await store.promoteDue(T0 + 4999, 100);
    expect((await store.reserve([j.topic], 10, T0 + 4999)).reservations).toEqual([]);
    await store.promoteDue(T0 + 5000, 100);
    const { reservations } = await store.reserve([j.topic], 10, T0 + 5000);
    expect(reservations.map((r) => [r.job.id, r.job.body])).toEqual([[j.id, second]]);
  });

  test('upsert: replace of a ready job makes it delayed again, or keeps it ready in its new priority', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 0 });
    const k = job({ delayMs: 0 });
    await store.pushMany([j, k], T0);
    const replace = { mode: 'replace' as const };
    const [later, now] = await store.pushMany(
      [
        { ...j, runAt: T0 + 3000, onExists: replace },
        { ...k, runAt: T0 + 20, priority: -5, onExists: replace },
      ],
      T0 + 20,
    );
    expect(later!.job).toMatchObject({ state: 'delayed', runAt: T0 + 3000 });
    expect(now!.job).toMatchObject({ state: 'ready', priority: -5 });
    const { reservations } = await store.reserve([j.topic], 10, T0 + 30);
    expect(reservations.map((r) => r.job.id)).toEqual([k.id]);
    expect((await store.stats()).find((s) => s.topic === j.topic)!.counts).toMatchObject({ delayed: 1, reserved: 1 });
  });

  test('upsert: extend moves the due time to the push’s, never past maxWaitMs after the first push', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 1000, body: '"first"' });
    await store.pushMany([j], T0);
    const extend = { mode: 'extend' as const, maxWaitMs: 2500 };
    const [first] = await store.pushMany([{ ...j, body: '"x"', runAt: T0 + 800 + 1000, onExists: extend }], T0 + 800);
    expect(first).toMatchObject({ created: false, change: 'extended' });
    // extend keeps the body and priority: only the due time moves
    expect(first!.job).toMatchObject({ body: '"first"', runAt: T0 + 1800, state: 'delayed' });
    const [capped] = await store.pushMany([{ ...j, runAt: T0 + 1600 + 1000, onExists: extend }], T0 + 1600);
    expect(capped!.job.runAt).toBe(T0 + 2500);
    const [unbounded] = await store.pushMany(
      [{ ...j, runAt: T0 + 9000, onExists: { mode: 'extend', maxWaitMs: null } }],
      T0 + 1700,
    );
    expect(unbounded!.job.runAt).toBe(T0 + 9000);
    expect((await store.history(j.id)).map((h) => h.event)).toEqual(['push', 'extend', 'extend', 'extend']);
    await store.promoteDue(T0 + 8999, 100);
    expect((await store.reserve([j.topic], 10, T0 + 8999)).reservations).toEqual([]);
    await store.promoteDue(T0 + 9000, 100);
    expect((await store.reserve([j.topic], 10, T0 + 9000)).reservations).toHaveLength(1);
  });

  test('upsert: a reserved or ended job, or one of another topic, is kept', async () => {
    const { store, job, other } = context();
    const j = job({ delayMs: 0 });
    const held = job({ topic: other, delayMs: 1000, body: '"theirs"' });
    await store.pushMany([j, held], T0);
    await store.reserve([j.topic], 1, T0);
    const replace = { mode: 'replace' as const };
    const [reserved, foreign] = await store.pushMany(
      [
        { ...j, body: '"new"', onExists: replace },
        { ...held, topic: j.topic, body: '"mine"', onExists: replace },
      ],
      T0 + 1,
    );
    expect(reserved).toEqual({ created: false, job: expect.objectContaining({ state: 'reserved', body: j.body }) });
    expect(foreign).toEqual({ created: false, job: expect.objectContaining({ topic: other, body: '"theirs"' }) });
    const k = job({ delayMs: 0 });
    await store.pushMany([k], T0);
    await store.cancel(k.id, T0 + 2);
    const [ended] = await store.pushMany([{ ...k, onExists: { mode: 'extend', maxWaitMs: null } }], T0 + 3);
    expect(ended).toEqual({ created: false, job: expect.objectContaining({ state: 'cancelled' }) });
  });

  test('upsert: a push with a rule whose id no job holds creates the job', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 100, onExists: { mode: 'extend', maxWaitMs: 1000 } });
    const [result] = await store.pushMany([j], T0);
    expect(result).toEqual({ created: true, job: expect.objectContaining({ id: j.id, runAt: T0 + 100 }) });
  });

  test('upsert: a job due far ahead (a journal may hold it alone) is replaced and extended too', async () => {
    const { store, job } = context();
    const day = 86_400_000;
    const j = job({ delayMs: 30 * day, body: '"first"' });
    await store.pushMany([j], T0);
    const [replaced] = await store.pushMany(
      [{ ...j, body: '"second"', runAt: T0 + 40 * day, priority: 3, onExists: { mode: 'replace' } }],
      T0 + 10,
    );
    expect(replaced).toMatchObject({ created: false, change: 'replaced' });
    expect(await store.get(j.id)).toMatchObject({ body: '"second"', runAt: T0 + 40 * day, priority: 3 });
    const extend = { mode: 'extend' as const, maxWaitMs: 45 * day };
    const [extended] = await store.pushMany([{ ...j, runAt: T0 + 50 * day, onExists: extend }], T0 + 20);
    expect(extended).toMatchObject({ created: false, change: 'extended', job: { runAt: T0 + 45 * day } });
    expect(await store.get(j.id)).toMatchObject({ body: '"second"', runAt: T0 + 45 * day, state: 'delayed' });
    expect((await store.history(j.id)).map((h) => h.event)).toEqual(['push', 'replace', 'extend']);
  });

  test('upsert: a batch that names one id twice creates the job, then applies the rule, in order', async () => {
    const { store, job } = context();
    const j = job({ delayMs: 1000 });
    const results = await store.pushMany(
      [j, { ...j, runAt: T0 + 3000, onExists: { mode: 'extend', maxWaitMs: null } }],
      T0,
    );
    expect(results.map((r) => [r.created, r.change, r.job.runAt])).toEqual([
      [true, undefined, T0 + 1000],
      [false, 'extended', T0 + 3000],
    ]);
    expect((await store.history(j.id)).map((h) => h.event)).toEqual(['push', 'extend']);
  });

  test('upsert: a batch of many ids, each pushed with rules several times, applies them in push order', async () => {
    const { store, job } = context();
    const jobs = Array.from({ length: 40 }, (_, k) => job({ delayMs: 1000, body: `"v${k}"` }));
    await store.pushMany(jobs, T0);
    // Three rounds over every id in one batch: extend, replace, extend again (capped by maxWaitMs on even ids).
    const batch = [1, 2, 3].flatMap((round) =>
      jobs.map((j, k) =>
        round === 2
          ? { ...j, body: `"r${k}"`, runAt: T0 + 5000 + k, priority: k % 3, onExists: { mode: 'replace' as const } }
          : {
              ...j,
              body: '"ignored"',
              runAt: T0 + round * 10_000 + k,
              onExists: { mode: 'extend' as const, maxWaitMs: k % 2 === 0 ? 20_000 : null },
            },
      ),
    );
    const results = await store.pushMany(batch, T0 + 10);
    expect(results.every((r) => !r.created)).toBe(true);
    expect(results.map((r) => r.change)).toEqual(
      batch.map((b) => (b.onExists.mode === 'replace' ? 'replaced' : 'extended')),
    );
    for (const [k, j] of jobs.entries()) {
      const last = results[2 * jobs.length + k]!.job;
      const runAt = k % 2 === 0 ? T0 + 20_000 : T0 + 30_000 + k;
      expect(last).toMatchObject({ body: `"r${k}"`, priority: k % 3, runAt, state: 'delayed' });
      expect(await store.get(j.id)).toMatchObject({ body: `"r${k}"`, priority: k % 3, runAt });
      expect((await store.history(j.id)).map((h) => h.event)).toEqual(['push', 'extend', 'replace', 'extend']);
    }
    expect((await store.promoteDue(T0 + 30_039, 100)).count).toBe(40);
    expect((await store.reserve([jobs[0]!.topic], 100, T0 + 30_039)).reservations).toHaveLength(40);
  });
}
