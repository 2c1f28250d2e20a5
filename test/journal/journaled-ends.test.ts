import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';
import { swappableStore } from '../helpers/swappable-store.js';

// A Redis failover loses the last writes the old master acknowledged: the inner store is swapped for one that
// holds the job as it was before its finish or cancel (ready), while the journal keeps the acknowledged end.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

for (const db of databases) {
  describe(`a job the journal ended comes back in the inner store (${db.dialect})`, () => {
    const open: JournaledStore[] = [];
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
      await db.truncate();
    });
    const setup = async (options: { failGet?: () => boolean } = {}) => {
      const inner = swappableStore(new SqliteStore({ path: ':memory:', nodeId: 'e' }));
      // a journal whose single-row read fails on demand (the database dies between the guard's two reads)
      const journal = new Proxy(db.journal({ maxConnections: 3 }), {
        get: (target, prop) =>
          prop === 'get' && options.failGet?.()
            ? () => Promise.reject(new Error('injected: journal gone'))
            : (Reflect.get(target, prop) as unknown),
      });
      const store = new JournaledStore(inner, journal, { nodeId: 'e', clock: new FakeClock() });
      await store.open();
      open.push(store);
      return { store, inner };
    };
    const now = Date.UTC(2026, 0, 1);

    it('finished in the journal: ended again in the inner store, not delivered', async () => {
      const { store, inner } = await setup();
      const job = aJob({ topic: 'ends', now });
      await store.pushMany([job], now);
      const [r] = (await store.reserve(['ends'], 1, now)).reservations;
      expect((await store.finish(job.id, r!.token, now + 1)).ok).toBe(true);
      await inner.swap(new SqliteStore({ path: ':memory:', nodeId: 'e' }));
      await inner.pushMany([job], now); // the failover's copy: the finish is gone
      expect((await store.reserve(['ends'], 10, now + 2)).reservations).toEqual([]);
      expect(await inner.get(job.id)).toMatchObject({ state: 'finished' });
    });

    it('cancelled in the journal: cancelled again in the inner store, not delivered; other jobs still are', async () => {
      const { store, inner } = await setup();
      const job = aJob({ topic: 'ends', now });
      const other = aJob({ topic: 'ends', now });
      await store.pushMany([job, other], now);
      expect((await store.cancel(job.id, now + 1)).ok).toBe(true);
      await inner.swap(new SqliteStore({ path: ':memory:', nodeId: 'e' }));
      await inner.pushMany([job, other], now);
      const delivered = (await store.reserve(['ends'], 10, now + 2)).reservations;
      expect(delivered.map((d) => d.job.id)).toEqual([other.id]);
      expect(await inner.get(job.id)).toMatchObject({ state: 'cancelled' });
    });

    it('the journal cannot answer: the reserve fails and gives its jobs back unchanged', async () => {
      const { store, inner } = await setup();
      const job = aJob({ topic: 'ends', now });
      await store.pushMany([job], now);
      await store.journal.close();
      await expect(store.reserve(['ends'], 10, now + 2)).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
      expect(await inner.get(job.id)).toMatchObject({ state: 'ready', attempts: 0 });
      await store.journal.open();
      expect((await store.reserve(['ends'], 10, now + 3)).reservations.map((r) => r.job.id)).toEqual([job.id]);
    });

    it('the journal dies between its two reads: the job is given back, not delivered', async () => {
      let failGet = false;
      const { store, inner } = await setup({ failGet: () => failGet });
      const job = aJob({ topic: 'ends', now });
      await store.pushMany([job], now);
      const [r] = (await store.reserve(['ends'], 1, now)).reservations;
      expect((await store.finish(job.id, r!.token, now + 1)).ok).toBe(true);
      await inner.swap(new SqliteStore({ path: ':memory:', nodeId: 'e' }));
      await inner.pushMany([job], now);
      failGet = true;
      expect((await store.reserve(['ends'], 10, now + 2)).reservations).toEqual([]);
      expect(await inner.get(job.id)).toMatchObject({ state: 'ready' });
    });
  });
}
