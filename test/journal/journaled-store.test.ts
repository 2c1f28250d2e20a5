import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { CLEAR_ALL_AUDIT_ID } from '../../src/journal/recovery/restore.js';
import { JournaledStore, type JournaledStoreOptions } from '../../src/journal/journaled-store/journaled-store.js';
import { MARKER_ID } from '../../src/journal/journal-jobs.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';
import { swappableStore } from '../helpers/swappable-store.js';
import { wipeUnderLoad } from './wipe-scenario.js';

const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const HOUR = 3_600_000;
const sqlite = () => new SqliteStore({ path: ':memory:', nodeId: 'node-a' });

for (const db of databases) {
  describe(`JournaledStore on ${db.dialect} (SQLite inner)`, () => {
    let clock: FakeClock;
    let topic: string;
    const open: Store[] = [];
    const make = async (inner: Store, options: Partial<JournaledStoreOptions> = {}) => {
      const store = new JournaledStore(inner, db.journal({ maxConnections: 4 }), {
        nodeId: 'node-a',
        clock,
        horizonMs: 60_000,
        ...options,
      });
      await store.open();
      open.push(store);
      return store;
    };

    beforeEach(async () => {
      await db.truncate();
      clock = new FakeClock();
      topic = `t-${Math.random().toString(36).slice(2, 8)}`;
    });
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
    });

    it('journals push, finish and cancel durably, with their history', async () => {
      const store = await make(sqlite());
      const now = clock.now();
      const [a, b] = [aJob({ topic, now }), aJob({ topic, now, delayMs: 1000 })];
      await store.pushMany([a, b], now);
      const [r] = (await store.reserve([topic], 1, now)).reservations;
      await store.finish(r!.job.id, r!.token, now + 1);
      // A repeat of the same finish is answered as done and journals nothing more.
      expect(await store.finish(r!.job.id, r!.token, now + 2)).toMatchObject({
        ok: true,
        repeated: true,
        value: { state: 'finished', finishedAt: now + 1 },
      });
      await store.cancel(b.id, now + 2, { reason: 'changed my mind' });
      const rows = await db.query<{ id: string; state: string; finished_at: unknown; loaded: unknown }>(
        `SELECT id, state, finished_at, loaded FROM delayq_jobs WHERE id IN ('${a.id}', '${b.id}') ORDER BY id`,
      );
      expect(rows.map((x) => [x.id, x.state, Number(x.finished_at), Number(x.loaded)]).sort()).toEqual(
        [
          [a.id, 'finished', now + 1, 1],
          [b.id, 'cancelled', now + 2, 1],
        ].sort(),
      );
      // the inner store forgets terminal jobs soon; the journal still answers
      await store.inner.purge(now + 10, 100);
      expect(await store.inner.get(a.id)).toBeNull();
      expect(await store.get(a.id)).toMatchObject({ id: a.id, state: 'finished' });
      expect((await store.history(a.id)).map((h) => `${h.event}:${h.state}`)).toEqual([
        'push:ready',
        'reserve:reserved',
        'finish:finished',
      ]);
      expect((await store.history(b.id)).at(-1)).toMatchObject({
        event: 'cancel',
        reason: 'changed my mind',
        node: 'node-a',
      });
    });

    it('under a steady load the inner store is replaced by an empty one: after restore every acknowledged unfinished job is delivered, no finished or cancelled one', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner);
      await wipeUnderLoad(store, topic, clock.now(), () => inner.swap(sqlite()));
    }, 60_000); // 15–30 s on a loaded 2-core host

    it('in manual mode a lost inner store is reported loudly and waits for the operator', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner, { restoreMode: 'manual' });
      const now = clock.now();
      const job = aJob({ topic, now, delayMs: 1000 });
      await store.pushMany([job], now);
      await inner.swap(sqlite());
      expect(await store.checkInner(now)).toBe('lost');
      expect(store.status()).toMatchObject({ restoreMode: 'manual', inner: 'lost', lostSince: now });
      expect(await store.inner.get(job.id)).toBeNull();
      const summary = await store.restore({ expire: true }, now);
      expect(summary).toMatchObject({ scanned: 1, restored: 1 });
      expect(store.status()).toMatchObject({ inner: 'ok', lostSince: null, lastRestore: { restored: 1 } });
      expect(await store.inner.get(MARKER_ID)).not.toBeNull();
      expect(await store.checkInner(now)).toBe('ok');
      expect(await store.inner.get(job.id)).toMatchObject({ state: 'delayed', runAt: now + 1000 });
    });

    it('restore with expire=false skips and marks past-due jobs; restore one by id', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner, { restoreMode: 'manual' });
      const now = clock.now();
      const past = aJob({ topic, now, delayMs: 1000 });
      const future = aJob({ topic, now, delayMs: 50_000 });
      await store.pushMany([past, future], now);
      await inner.swap(sqlite());
      const later = now + 5000;
      expect(await store.restoreJob(future.id, {}, later)).toMatchObject({ scanned: 1, restored: 1 });
      expect(await store.restoreJob(future.id, {}, later)).toMatchObject({ restored: 0, alreadyPresent: 1 });
      // One restore entry (the second run restored nothing), in the state the job was pushed back in.
      const futureHistory = await store.journal.history(future.id);
      expect(futureHistory.filter((h) => h.event === 'restore')).toEqual([
        {
          at: later,
          event: 'restore',
          state: 'delayed',
          attempt: 0,
          node: expect.any(String),
          reason: 'restored from the journal',
        },
      ]);
      expect(await store.restore({ expire: false }, later)).toMatchObject({
        scanned: 2,
        restored: 0,
        alreadyPresent: 1,
        skippedExpired: 1,
      });
      expect(await store.inner.get(past.id)).toBeNull();
      expect(await store.get(past.id)).toMatchObject({ state: 'expired', finishedAt: later });
      expect((await store.history(past.id)).at(-1)).toMatchObject({
        event: 'restore',
        reason: expect.stringContaining('expire=false'),
      });
      await expect(store.restoreJob(past.id, {}, later)).rejects.toMatchObject({ code: 'E_WRONG_STATE' });
      await expect(store.restoreJob('missing', {}, later)).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
      // expire=true re-delivers a past-due job at once
      const late = aJob({ topic, now: later, delayMs: 10 });
      await store.pushMany([late], later);
      await inner.swap(sqlite());
      await store.restore({ expire: true }, later + 100);
      expect(await store.inner.get(late.id)).toMatchObject({ state: 'ready' });
      expect((await store.journal.history(late.id)).at(-1)).toMatchObject({
        event: 'restore',
        state: 'ready',
        at: later + 100,
      });
    });

    it('a job keeps its group through the journal: a restore and a load from beyond the horizon', async () => {
      const inner = swappableStore(sqlite());
      const store = await make(inner, { restoreMode: 'manual' });
      const now = clock.now();
      const near = aJob({ topic, now, delayMs: 1000, group: 'tenant-7' });
      const far = aJob({ topic, now, delayMs: 2 * HOUR, group: 'tenant-8' });
      await store.pushMany([near, far], now);
      expect(await store.inner.get(far.id)).toBeNull();
      expect(await store.get(far.id)).toMatchObject({ group: 'tenant-8' });
      await inner.swap(sqlite());
      await store.restore({ expire: true }, now + 10);
      expect(await store.inner.get(near.id)).toMatchObject({ group: 'tenant-7' });
      expect(await store.loadDue(far.runAt, 100)).toBe(1);
      expect(await store.inner.get(far.id)).toMatchObject({ group: 'tenant-8' });
    });

    it('clearAll needs its confirmation, cancels every unfinished job and is audited', async () => {
      const store = await make(sqlite());
      const now = clock.now();
      const jobs = [aJob({ topic, now }), aJob({ topic, now, delayMs: 5000 }), aJob({ topic, now, delayMs: 3 * HOUR })];
      await store.pushMany(jobs, now);
      await expect(store.clearAll({ confirm: 'yes' }, now)).rejects.toMatchObject({
        code: 'E_VALIDATION',
        field: 'confirm',
      });
      expect((await store.get(jobs[0]!.id))!.state).toBe('ready');
      expect(await store.clearAll({ confirm: 'clear-all', actor: 'ops@test', reason: 'drill' }, now + 1)).toMatchObject(
        { cancelled: 3 },
      );
      for (const j of jobs) expect((await store.get(j.id))!.state).toBe('cancelled');
      expect((await store.reserve([topic], 10, now + 10)).reservations).toEqual([]);
      const audit = await store.history(CLEAR_ALL_AUDIT_ID);
      expect(audit.map((h) => h.reason)).toEqual([
        'clearAll by ops@test: drill (started)',
        'clearAll by ops@test: drill (done: 3 jobs)',
      ]);
      expect(await store.restore({ expire: true }, now + 2)).toMatchObject({ scanned: 0, restored: 0 });
    });

    it('jobs beyond the horizon live only in the journal, yet get, list, stats, cancel and reschedule see them', async () => {
      const store = await make(sqlite());
      const now = clock.now();
      const far = aJob({ topic, now, delayMs: 30 * 86_400_000, bizKey: 'far' });
      const far2 = aJob({ topic, now, delayMs: 2 * HOUR });
      const near = aJob({ topic, now, delayMs: 1000 });
      const [pf] = await store.pushMany([far, far2, near], now);
      expect(pf).toMatchObject({ created: true, job: { state: 'delayed', runAt: far.runAt } });
      expect(await store.inner.get(far.id)).toBeNull();
      expect(await store.get(far.id)).toMatchObject({ state: 'delayed', bizKey: 'far' });
      const [dup] = await store.pushMany([{ ...far, body: '"other"' }], now + 1);
      expect(dup).toMatchObject({ created: false, job: { body: far.body } });
      expect((await store.list({ topic, limit: 10 })).jobs.map((j) => j.id).sort()).toEqual(
        [far.id, far2.id, near.id].sort(),
      );
      expect((await store.list({ topic, bizKey: 'far', limit: 10 })).jobs.map((j) => j.id)).toEqual([far.id]);
      const mine = (await store.stats()).find((s) => s.topic === topic)!;
      expect(mine.counts.delayed).toBe(3);
      expect(mine.nextDueAt).toBe(near.runAt);
      expect(await store.reschedule(far2.id, now + 30_000, now + 2)).toMatchObject({
        ok: true,
        value: { state: 'delayed', runAt: now + 30_000 },
      });
      expect(await store.inner.get(far2.id)).toMatchObject({ runAt: now + 30_000 });
      expect(await store.cancel(far.id, now + 3)).toMatchObject({
        ok: true,
        value: { job: { state: 'cancelled' }, dispatched: false },
      });
      expect(await store.cancel(far.id, now + 4)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
        state: 'cancelled',
      });
      // a cancelled journal-only job is never loaded
      expect(await store.loadDue(far.runAt, 100)).toBe(0);
    });

    it('run now records the new due time in the journal, for loaded and journal-only jobs alike', async () => {
      const store = await make(sqlite());
      const now = clock.now();
      const far = aJob({ topic, now, delayMs: 30 * 86_400_000 });
      const near = aJob({ topic, now, delayMs: 1000 });
      await store.pushMany([far, near], now);
      expect(await store.inner.get(far.id)).toBeNull();
      for (const [j, at] of [
        [far, now + 2],
        [near, now + 3],
      ] as const) {
        expect(await store.runNow(j.id, at)).toMatchObject({ ok: true, value: { state: 'ready', runAt: at } });
        expect(await store.inner.get(j.id)).toMatchObject({ state: 'ready', runAt: at });
        expect(await store.journal.get(j.id)).toMatchObject({ runAt: at, loaded: true });
        expect((await store.history(j.id)).map((h) => [h.event, h.reason])).toContainEqual(['promote', 'run now']);
      }
      expect(await store.runNow(near.id, now + 4)).toMatchObject({ ok: false, reason: 'wrong_state', state: 'ready' });
      expect(await store.runNow(`${far.id}-none`, now + 4)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('several processes load each job entering the horizon exactly once', async () => {
      const shared = swappableStore(sqlite());
      const [a, b] = [await make(shared), await make(shared)];
      const now = clock.now();
      const jobs = Array.from({ length: 3000 }, (_, i) => aJob({ topic, now, delayMs: HOUR + (i % 600) * 1000 }));
      for (let i = 0; i < jobs.length; i += 500) await a.pushMany(jobs.slice(i, i + 500), now);
      expect((await a.stats()).find((s) => s.topic === topic)!.counts.delayed).toBe(3000);
      shared.pushedIds.clear();
      const later = now + HOUR; // the whole batch is now inside the 60 s.. 11 min window of the horizon
      const rounds = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          let n = 0;
          for (let k = 0; k < 20; k++) n += await (i % 2 ? a : b).loadDue(later + 10 * 60_000, 100);
          return n;
        }),
      );
      expect(rounds.reduce((x, y) => x + y, 0)).toBe(3000);
      expect(rounds.filter((n) => n > 0).length).toBeGreaterThan(1);
      expect(shared.pushedIds.size).toBe(3000);
      expect([...shared.pushedIds.values()].every((n) => n === 1)).toBe(true);
      const loaded = await db.query<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM delayq_jobs WHERE loaded = 1 AND id LIKE 'job-%'`,
      );
      expect(Number(loaded[0]!.n)).toBeGreaterThanOrEqual(3000);
    });

    it('retention: terminal jobs leave the inner store promptly and the journal after the retention; live ones never', async () => {
      const store = await make(sqlite(), { innerRetentionMs: 1000, reconcileSettleMs: 0 });
      const now = clock.now();
      const done = aJob({ topic, now });
      const waiting = aJob({ topic, now, delayMs: 400 * 86_400_000 });
      await store.pushMany([done, waiting], now);
      const [r] = (await store.reserve([topic], 1, now)).reservations;
      await store.finish(done.id, r!.token, now);
      expect(await store.purgeInner(now + 999, 100)).toBe(0);
      // ended jobs leave the inner store only once a reconciliation cycle has seen them
      expect(await store.purgeInner(now + 1001, 100)).toBe(0);
      expect(await store.reconcile(now + 1001)).toMatchObject({ cycleDone: true });
      expect(await store.purgeInner(now + 1001, 100)).toBe(1);
      expect(await store.get(done.id)).toMatchObject({ state: 'finished' });
      expect(await store.purge(now + 7 * 86_400_000, 100)).toBe(1);
      expect(await store.get(done.id)).toBeNull();
      expect(await store.purge(now + 3650 * 86_400_000, 100)).toBe(0);
      expect(await store.get(waiting.id)).toMatchObject({ state: 'delayed' });
    });
  });
}
