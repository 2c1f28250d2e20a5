import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import type { Reservation } from '../../src/core/job.js';
import type { Store } from '../../src/store/store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { reapLapsed } from '../../src/timer/reaper.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';

// A retry or release is journaled asynchronously, and a TTR lapse is a retry: such a step can reach the journal after
// the job's next reservation, made through another process (a write that came late), or on another master (Sentinel's
// split brain: that master kept a reservation the holder has since failed). It must not undo the newer reservation
// in the journal: a failover that then loses the reservation from the store would hand the job to another consumer
// while its holder still has it (test/chaos/failover-sentinel.test.ts met it as an overlapping reservation).
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** The store as a second process sees it: closing that process leaves the store open for the first. */
function sharedStore(store: Store): Store {
  return new Proxy(store, {
    get: (target, prop) => (prop === 'close' ? async () => undefined : (Reflect.get(target, prop) as unknown)),
  });
}

for (const db of databases) {
  describe(`a late journal write of a fail (${db.dialect})`, () => {
    const open: { close(): Promise<void> }[] = [];
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
      await db.truncate();
    });
    const now = Date.UTC(2026, 0, 1);

    it('does not undo the reservation another process journaled after it', async () => {
      const store = new SqliteStore({ path: ':memory:', nodeId: 'b' });
      const second = new JournaledStore(store, db.journal({ maxConnections: 3 }), {
        nodeId: 'b',
        clock: new FakeClock(),
      });
      await second.open();
      open.push(second);
      // the first process holds its asynchronous journal writes until it closes
      const first = new JournaledStore(sharedStore(store), db.journal({ maxConnections: 3 }), {
        nodeId: 'a',
        clock: new FakeClock(),
        asyncFlushMs: 60_000,
      });
      await first.open();
      const job = aJob({ topic: 'late', now });
      await first.pushMany([job], now);
      // the copy a replica has before the reservations below: a failover will lose them
      const promoted = new SqliteStore({ path: ':memory:', nodeId: 'c' });
      await promoted.open();
      await promoted.pushMany([job], now);

      const [failed] = (await first.reserve(['late'], 1, now + 10)).reservations;
      expect((await first.retry(job.id, failed!.token, now + 11, { runAt: now + 11, error: 'chaos' })).ok).toBe(true);
      const [held] = (await second.reserve(['late'], 1, now + 20)).reservations;
      expect(held?.job.id).toBe(job.id);
      await first.close(); // the fail's journal write lands now, after the newer reservation's

      expect(await second.journal.get(job.id)).toMatchObject({ state: 'reserved', token: held!.token });
      // the store fails over to a replica without either reservation: the journal's holder keeps the job
      const afterFailover = new JournaledStore(promoted, db.journal({ maxConnections: 3 }), {
        nodeId: 'c',
        clock: new FakeClock(),
      });
      await afterFailover.open();
      open.push(afterFailover);
      expect((await afterFailover.reserve(['late'], 1, now + 30)).reservations).toEqual([]);
      expect((await afterFailover.finish(job.id, held!.token, now + 40)).ok).toBe(true);
    });

    /**
     * One job on two masters of a failover: the old one, with its journaled process (open), and the new one (open,
     * not journaled) holding the copy its replica had. `nodes`: the two stores' node ids.
     */
    const twoMasters = async (topic: string, ttrMs: number, [oldNode, newNode]: [string, string]) => {
      const [oldMaster, newMaster] = [
        new SqliteStore({ path: ':memory:', nodeId: oldNode }),
        new SqliteStore({ path: ':memory:', nodeId: newNode }),
      ];
      const onOld = new JournaledStore(oldMaster, db.journal({ maxConnections: 3 }), {
        nodeId: oldNode,
        clock: new FakeClock(),
      });
      await onOld.open();
      open.push(onOld);
      await newMaster.open();
      const job = aJob({ topic, now, ttrMs });
      await onOld.pushMany([job], now);
      await newMaster.pushMany([job], now); // the copy the promoted replica has
      return { onOld, newMaster, job };
    };

    it('a lapse on a stale master does not undo the reservation made on the other one', async () => {
      const ttrMs = 1000;
      const { onOld, newMaster, job } = await twoMasters('split', ttrMs, ['a', 'b']);
      // the new master's process closes when the sentinels demote the old one; the new master stays
      const onNew = new JournaledStore(sharedStore(newMaster), db.journal({ maxConnections: 3 }), {
        nodeId: 'b',
        clock: new FakeClock(),
      });
      await onNew.open();

      const [first] = (await onOld.reserve(['split'], 1, now + 10)).reservations;
      // the new master hands the job out too: it goes back to the journal's holder, now held on both masters
      expect((await onNew.reserve(['split'], 1, now + 20)).reservations).toEqual([]);
      // on the old master the holder fails it and the next consumer reserves it
      expect((await onOld.retry(job.id, first!.token, now + 30, { runAt: now + 30, error: 'chaos' })).ok).toBe(true);
      const [second] = (await onOld.reserve(['split'], 1, now + 40)).reservations;
      expect(second?.job.id).toBe(job.id);
      // on the new master the first reservation lapses
      expect((await reapLapsed(onNew, now + 10 + ttrMs, 10)).lapsed).toBe(1);
      await onNew.close();

      expect(await onOld.journal.get(job.id)).toMatchObject({ state: 'reserved', token: second!.token });
      // the old master is demoted: on the new master the job stays with its holder until its deadline
      const afterFailover = new JournaledStore(newMaster, db.journal({ maxConnections: 3 }), {
        nodeId: 'c',
        clock: new FakeClock(),
      });
      await afterFailover.open();
      open.push(afterFailover);
      expect((await afterFailover.reserve(['split'], 1, now + 20 + ttrMs)).reservations).toEqual([]);
      expect((await afterFailover.finish(job.id, second!.token, now + 30 + ttrMs)).ok).toBe(true);
    });

    it('a second lapse of a reservation a failover lost does not take the job from its next holder', async () => {
      const ttrMs = 1000;
      const { onOld, newMaster, job } = await twoMasters('lapse', ttrMs, ['o', 'n']);
      open.push(newMaster);
      const processOn = async (nodeId: string, journal = db.journal({ maxConnections: 3 }), asyncFlushMs?: number) => {
        const p = new JournaledStore(sharedStore(newMaster), journal, {
          nodeId,
          clock: new FakeClock(),
          ...(asyncFlushMs ? { asyncFlushMs } : {}),
        });
        await p.open();
        open.push(p);
        return p;
      };
      // the first reservation is made on the old master; the new master hands the job out again and the journal
      // gives it back to its holder, under a restore entry (the new master never saw the reservation itself)
      const [first] = (await onOld.reserve(['lapse'], 1, now + 10)).reservations;
      const a = await processOn('a', undefined, 60_000); // its lapse reaches the journal late
      expect((await a.reserve(['lapse'], 1, now + 20)).reservations).toEqual([]);
      // the reservation lapses: process a's reaper retries it first
      const lapse = { runAt: now + 1010 + 5, error: 'lapsed' };
      expect((await a.retry(job.id, first!.token, now + 1015, lapse)).ok).toBe(true);
      // a reaper that listed the same lapse is answered as after a lapse: the reservation is not put back
      const late = await processOn('l');
      expect(await late.retry(job.id, first!.token, now + 1016, lapse)).toMatchObject({
        ok: false,
        reason: 'wrong_state',
        state: 'ready',
      });
      expect((await newMaster.history(job.id)).filter((h) => h.event === 'restore')).toHaveLength(1);
      // process b's reaper listed it too; while it looks the journal up, process c reserves the job
      const c = await processOn('c');
      let second: Reservation | undefined;
      const journalOfB = db.journal({ maxConnections: 3 });
      const lookedUp = new Proxy(journalOfB, {
        get: (target, prop) =>
          prop === 'get'
            ? async (id: string) => {
                const row = await target.get(id);
                [second] = (await c.reserve(['lapse'], 1, now + 1020)).reservations;
                return row;
              }
            : (Reflect.get(target, prop) as unknown),
      });
      const b = await processOn('b', lookedUp);
      expect(await b.retry(job.id, first!.token, now + 1016, lapse)).toMatchObject({ ok: false });
      expect(second?.job.id).toBe(job.id);
      // the job stays with its next holder until that holder's deadline
      expect(await newMaster.get(job.id)).toMatchObject({ state: 'reserved', deadlineAt: second!.deadlineAt });
      expect((await c.reserve(['lapse'], 1, now + 1030)).reservations).toEqual([]);
      expect((await c.finish(job.id, second!.token, now + 1040)).ok).toBe(true);
    });

    it('still journals a fail written after its own reservation', async () => {
      const store = new JournaledStore(
        new SqliteStore({ path: ':memory:', nodeId: 'a' }),
        db.journal({ maxConnections: 3 }),
        { nodeId: 'a', clock: new FakeClock() },
      );
      await store.open();
      open.push(store);
      const job = aJob({ topic: 'own', now });
      await store.pushMany([job], now);
      const [r] = (await store.reserve(['own'], 1, now + 10)).reservations;
      expect((await store.retry(job.id, r!.token, now + 11, { runAt: now + 5000, error: 'chaos' })).ok).toBe(true);
      await store.close();
      open.pop();
      const reader = db.journal({ maxConnections: 1 });
      await reader.open();
      expect(await reader.get(job.id)).toMatchObject({ state: 'delayed', runAt: now + 5000 });
      await reader.close();
    });
  });
}
