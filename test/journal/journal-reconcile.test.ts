import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DelayqError } from '../../src/core/errors.js';
import { JournaledStore, type JournaledStoreOptions } from '../../src/journal/journaled-store/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';
import { swappableStore } from '../helpers/swappable-store.js';

// Restore never ends a live job; reconciliation brings the journal in line with
// the inner store after a crash between the two writes (simulated by writing one side only).
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** Polls the journal for an asynchronous write (reserve entries are batched within asyncFlushMs). */
async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within the deadline');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const sqlite = () => new SqliteStore({ path: ':memory:', nodeId: 'r' });

/** The inner store, failing its next push as a crash after the journal write would. */
function pushFailing(inner: Store): Store & { failNextPush(): void } {
  let armed = false;
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'failNextPush') return () => (armed = true);
      const value = (target as unknown as Record<string | symbol, unknown>)[prop];
      if (typeof value !== 'function') return value;
      if (prop === 'pushMany' && armed) {
        armed = false;
        return () => Promise.reject(new DelayqError('E_STORE_UNAVAILABLE', 'injected: the inner push was lost'));
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  }) as Store & { failNextPush(): void };
}

for (const db of databases) {
  describe(`journal exactness on ${db.dialect}`, () => {
    let clock: FakeClock;
    let topic: string;
    const open: JournaledStore[] = [];
    const make = async (inner: Store, options: Partial<JournaledStoreOptions> = {}) => {
      const store = new JournaledStore(inner, db.journal({ maxConnections: 3 }), {
        nodeId: 'r',
        clock,
        horizonMs: 60_000,
        reconcileSettleMs: 0,
        ...options,
      });
      await store.open();
      open.push(store);
      return store;
    };
    const journalRow = async (id: string) =>
      (
        await db.query<{ state: string; finished_at: unknown }>(
          `SELECT state, finished_at FROM delayq_jobs WHERE id = '${id}'`,
        )
      )[0];

    beforeEach(async () => {
      await db.truncate();
      clock = new FakeClock();
      topic = `x-${Math.random().toString(36).slice(2, 8)}`;
    });
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
    });

    it('restore with expire=false on a healthy store ends no live job; after a later loss they all come back', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner);
      const now = clock.now();
      const [reserved, ready, delayed] = [
        aJob({ topic, now }),
        aJob({ topic, now, priority: 5 }),
        aJob({ topic, now, delayMs: 1000 }),
      ];
      await store.pushMany([reserved, ready, delayed], now);
      const [r] = (await store.reserve([topic], 1, now)).reservations;
      expect(r!.job.id).toBe(reserved.id);
      const later = now + 5000;
      expect(await store.restore({ expire: false }, later)).toMatchObject({
        scanned: 3,
        restored: 0,
        alreadyPresent: 3,
        skippedExpired: 0,
      });
      expect(await store.get(reserved.id)).toMatchObject({ state: 'reserved' });
      expect(await store.get(ready.id)).toMatchObject({ state: 'ready' });
      expect(await store.get(delayed.id)).toMatchObject({ state: 'delayed' });
      for (const j of [reserved, ready, delayed]) expect((await journalRow(j.id))!.finished_at).toBeNull();
      // the reservation is still good, and a loss after that restore loses none of the unfinished jobs
      expect((await store.finish(reserved.id, r!.token, later)).ok).toBe(true);
      await inner.swap(sqlite());
      expect(await store.checkInner(later)).toBe('restored');
      const redelivered = (await store.reserve([topic], 10, later + 1)).reservations;
      expect(redelivered.map((x) => x.job.id).sort()).toEqual([ready.id, delayed.id].sort());
    });

    it('a finish the journal missed (crash after the inner finish) is journaled by the next pass and never delivered again', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner, { innerRetentionMs: 1000 });
      const now = clock.now();
      const job = aJob({ topic, now });
      await store.pushMany([job], now);
      const [r] = (await store.reserve([topic], 1, now)).reservations;
      // the process dies between the inner finish and the journal write: only the inner store has it
      expect((await inner.finish(job.id, r!.token, now + 1)).ok).toBe(true);
      await waitUntil(async () => (await journalRow(job.id))?.state === 'reserved'); // the asynchronous reserve entry
      expect(await journalRow(job.id)).toMatchObject({ state: 'reserved', finished_at: null });
      // the inner store keeps the ended job until a reconciliation cycle has seen it
      expect(await store.purgeInner(now + 10_000, 100)).toBe(0);
      expect(await store.reconcile(now + 10_000)).toMatchObject({ checked: 1, ended: 1, repushed: 0 });
      expect(await journalRow(job.id)).toMatchObject({ state: 'finished' });
      expect(Number((await journalRow(job.id))!.finished_at)).toBe(now + 1);
      expect((await store.history(job.id)).map((h) => `${h.event}:${h.state}`)).toContain('finish:finished');
      expect(await store.purgeInner(now + 10_000, 100)).toBe(1);
      expect(await store.get(job.id)).toMatchObject({ state: 'finished' });
      // a later loss and restore do not bring it back
      await inner.swap(sqlite());
      expect(await store.checkInner(now + 20_000)).toBe('restored');
      expect((await store.reserve([topic], 10, now + 20_001)).reservations).toEqual([]);
    });

    it('a push whose inner write was lost is pushed back once it settled, and delivered', async () => {
      const inner = pushFailing(sqlite());
      const store = await make(inner, { reconcileSettleMs: 60_000 });
      const now = clock.now();
      const job = aJob({ topic, now, delayMs: 500 });
      inner.failNextPush();
      await expect(store.pushMany([job], now)).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
      expect(await inner.get(job.id)).toBeNull();
      // written just now: it may still be on its way to the inner store, so the pass leaves it
      expect(await store.reconcile(now + 1000)).toMatchObject({ checked: 1, repushed: 0 });
      await db.query(`UPDATE delayq_jobs SET updated_at = updated_at - 120000 WHERE id = '${job.id}'`);
      expect(await store.reconcile(now + 1000)).toMatchObject({ checked: 1, repushed: 1 });
      expect(await inner.get(job.id)).toMatchObject({ state: 'ready', runAt: job.runAt });
      await store.promoteDue(now + 1000, 10);
      const [r] = (await store.reserve([topic], 1, now + 1000)).reservations;
      expect(r!.job.id).toBe(job.id);
      await waitUntil(async () =>
        (await store.journal.history(job.id)).some((h) => h.event === 'restore' && h.reason !== null),
      );
    });

    it('a lost inner store is left to the restore: in manual mode reconciliation pushes nothing back', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner, { restoreMode: 'manual' });
      const now = clock.now();
      await store.pushMany([aJob({ topic, now })], now);
      await inner.swap(sqlite());
      expect(await store.checkInner(now)).toBe('lost');
      expect(await store.reconcile(now)).toBeNull();
      expect((await inner.list({ topic, limit: 10 })).jobs).toEqual([]);
    });

    it("a restarted process's first pass journals a finish its crash cut off, wherever the cycle's cursor is", async () => {
      const shared = swappableStore(sqlite());
      const first = await make(shared, { reconcileBatchSize: 10 });
      const now = clock.now();
      // 30 unfinished rows ahead of the crashed finish in id order: the cycle alone reaches it on its 4th pass
      await first.pushMany(
        Array.from({ length: 30 }, (_, i) => aJob({ topic, now, id: `a-${topic}-${String(i).padStart(2, '0')}` })),
        now,
      );
      const late = aJob({ topic: `${topic}-late`, now, id: `z-${topic}` });
      await first.pushMany([late], now);
      const [r] = (await first.reserve([late.topic], 1, now)).reservations;
      await shared.finish(late.id, r!.token, now + 1); // the journal never heard of this finish
      const restarted = await make(shared, { reconcileBatchSize: 10 });
      const pass = await restarted.reconcile(now + 2);
      expect(pass).toMatchObject({ ended: 1, cycleDone: false });
      expect(await journalRow(late.id)).toMatchObject({ state: 'finished' });
    });

    it('two instances share the cycle: bounded passes, each row handled, journal and store agree after one cycle', async () => {
      const shared = swappableStore(sqlite());
      const [a, b] = [await make(shared, { reconcileBatchSize: 10 }), await make(shared, { reconcileBatchSize: 10 })];
      const now = clock.now();
      const jobs = Array.from({ length: 35 }, () => aJob({ topic, now }));
      await a.pushMany(jobs, now);
      const reserved = (await a.reserve([topic], 35, now)).reservations;
      for (const r of reserved) await shared.finish(r.job.id, r.token, now + 1); // the journal never heard of these finishes
      await waitUntil(async () => (await journalRow(jobs[34]!.id))?.state === 'reserved');
      const passes = [];
      for (let i = 0; i < 4; i++) passes.push(await (i % 2 ? b : a).reconcile(now + 2 + i));
      // each pass checks at most a batch of the shared cycle, plus, on an instance's first pass, a batch of the
      // reserved rows (a crash between a finish's two writes leaves those behind: they are looked at first)
      expect(passes.every((p) => p!.checked <= 20)).toBe(true);
      expect(passes.some((p) => p!.cycleDone)).toBe(true);
      expect(passes.reduce((n, p) => n + p!.ended, 0)).toBe(35);
      const open = await db.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM delayq_jobs WHERE finished_at IS NULL`);
      expect(Number(open[0]!.n)).toBe(0);
      // the watermark is the start of that cycle: ended jobs before it may leave the inner store
      expect(await a.purgeInner(now + 60_000 + 10, 100)).toBe(35);
    });
  });
}
