import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import type { Store } from '../../src/store/store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';

// Sentinel's split brain, in two processes on one journal: the old master is stopped, a replica is promoted, and
// one process moves to it and reserves a job there. The other process's reserve was queued on the old master,
// which answers it on its return, from its own stale copy, before the sentinels demote it; that process has moved
// to the new master for everything after. The reservation the stale master made is not the store's: the journal
// keeps the other holder's, and the new master holds it. It must not be delivered.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** A store whose reserve is answered by `stale` and every other call by `current`. */
function answeredByStaleMaster(current: Store, stale: Store): Store {
  return new Proxy(current, {
    get: (target, prop) => (prop === 'reserve' ? stale.reserve.bind(stale) : (Reflect.get(target, prop) as unknown)),
  });
}

for (const db of databases) {
  describe(`a reservation from a stale master (${db.dialect})`, () => {
    const open: { close(): Promise<void> }[] = [];
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
      await db.truncate();
    });
    const now = Date.UTC(2026, 0, 1);

    it('is not delivered while the journal and the new master hold the job for another consumer', async () => {
      const newMaster = new SqliteStore({ path: ':memory:', nodeId: 'b' });
      const oldMaster = new SqliteStore({ path: ':memory:', nodeId: 'a' });
      await oldMaster.open();
      open.push(oldMaster);
      const promoted = new JournaledStore(newMaster, db.journal({ maxConnections: 3 }), {
        nodeId: 'b',
        clock: new FakeClock(),
      });
      await promoted.open();
      open.push(promoted);
      const job = aJob({ topic: 'split', now });
      await promoted.pushMany([job], now);
      await oldMaster.pushMany([job], now); // the copy the old master had when it stopped

      const [first] = (await promoted.reserve(['split'], 1, now + 10)).reservations;
      expect(first?.job.id).toBe(job.id);

      const lagging = new JournaledStore(
        answeredByStaleMaster(newMaster, oldMaster),
        db.journal({ maxConnections: 3 }),
        {
          nodeId: 'a',
          clock: new FakeClock(),
        },
      );
      await lagging.open();
      open.push(lagging);
      expect((await lagging.reserve(['split'], 1, now + 20)).reservations).toEqual([]);
      // the first holder still settles it
      expect((await promoted.finish(job.id, first!.token, now + 30)).ok).toBe(true);
    });

    it('a job the new master released after the journal recorded its reservation is still delivered', async () => {
      const store = new JournaledStore(
        new SqliteStore({ path: ':memory:', nodeId: 'c' }),
        db.journal({ maxConnections: 3 }),
        {
          nodeId: 'c',
          clock: new FakeClock(),
        },
      );
      await store.open();
      open.push(store);
      const job = aJob({ topic: 'split', now });
      await store.pushMany([job], now);
      const [first] = (await store.reserve(['split'], 1, now + 10)).reservations;
      // released in the store only (the journal's copy of the release is late): the journal still says reserved
      expect((await store.inner.release(job.id, first!.token, now + 11)).ok).toBe(true);
      const [second] = (await store.reserve(['split'], 1, now + 20)).reservations;
      expect(second?.job.id).toBe(job.id);
      expect(second?.token).not.toBe(first!.token);
      // the journal's row was stale (the release not journaled yet): the new reservation replaced it
      expect(await store.journal.get(job.id)).toMatchObject({ state: 'reserved', token: second!.token });
    });

    it('two reserves that checked the journal before either wrote: the first write wins, one consumer gets it', async () => {
      for (let round = 0; round < 5; round++) {
        const newMaster = new SqliteStore({ path: ':memory:', nodeId: 'b' });
        const oldMaster = new SqliteStore({ path: ':memory:', nodeId: 'a' });
        await oldMaster.open();
        open.push(oldMaster);
        const journal = () => db.journal({ maxConnections: 3 });
        const promoted = new JournaledStore(newMaster, journal(), { nodeId: 'b', clock: new FakeClock() });
        await promoted.open();
        open.push(promoted);
        const lagging = new JournaledStore(answeredByStaleMaster(newMaster, oldMaster), journal(), {
          nodeId: 'a',
          clock: new FakeClock(),
        });
        await lagging.open();
        open.push(lagging);
        const job = aJob({ topic: `race-${round}`, now });
        await promoted.pushMany([job], now);
        await oldMaster.pushMany([job], now);

        const answers = await Promise.all([
          lagging.reserve([job.topic], 1, now + 10),
          promoted.reserve([job.topic], 1, now + 10),
        ]);
        const delivered = answers.flatMap((a) => a.reservations);
        expect(delivered, `round ${round}`).toHaveLength(1);
        // the journal and the new master agree on the one holder, who can finish it
        const [winner] = delivered;
        expect(await promoted.journal.get(job.id)).toMatchObject({ state: 'reserved', token: winner!.token });
        expect((await promoted.finish(job.id, winner!.token, now + 30)).ok).toBe(true);
      }
    });

    it(
      db.dialect === 'postgres'
        ? 'a reserve that wins its claims learns it from its write (RETURNING): it reads the journal once, before'
        : 'a reserve reads its claims back after its write: it reads the journal twice',
      async () => {
        const store = new JournaledStore(new SqliteStore({ path: ':memory:', nodeId: 'b' }), db.journal(), {
          nodeId: 'b',
          clock: new FakeClock(),
        });
        await store.open();
        open.push(store);
        const jobs = [aJob({ topic: 'reads', now }), aJob({ topic: 'reads', now })];
        await store.pushMany(jobs, now);
        const reads = vi.spyOn(store.journal, 'endedOrReservedAmong');
        const { reservations } = await store.reserve(['reads'], 2, now + 10);
        expect(reservations).toHaveLength(2);
        expect(reads).toHaveBeenCalledTimes(db.dialect === 'postgres' ? 1 : 2);
        for (const r of reservations)
          expect(await store.journal.get(r.job.id)).toMatchObject({ state: 'reserved', token: r.token });
      },
    );
  });
}
