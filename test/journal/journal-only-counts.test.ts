import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { TopicStats } from '../../src/core/job.js';
import { aJob } from '../../src/testing/jobs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';

// The journal-only jobs' stats come from counters the database keeps as rows change (triggers on delayq_jobs),
// not from grouping every row: they must agree with that grouping after any mix of writes, from several
// connections and processes at once.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const HOUR = 3_600_000;

for (const db of databases) {
  describe(`journal-only stats from counters (${db.dialect})`, () => {
    let clock: FakeClock;
    const open: JournaledStore[] = [];
    const make = async () => {
      const store = new JournaledStore(
        new SqliteStore({ path: ':memory:', nodeId: 'n' }),
        db.journal({ maxConnections: 4 }),
        { nodeId: 'n', clock, horizonMs: 60_000 },
      );
      await store.open();
      open.push(store);
      return store;
    };
    beforeEach(async () => {
      await db.truncate();
      clock = new FakeClock();
    });
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
    });

    /** What a GROUP BY over every journal-only row says, in the stats' shape (topics with jobs only). */
    const grouped = async (): Promise<Map<string, Record<string, number>>> => {
      const rows = await db.query<{ topic: string; state: string; n: unknown }>(
        'SELECT topic, state, COUNT(*) AS n FROM delayq_jobs WHERE loaded = 0 GROUP BY topic, state',
      );
      const out = new Map<string, Record<string, number>>();
      for (const r of rows) out.set(r.topic, { ...out.get(r.topic), [r.state]: Number(r.n) });
      return out;
    };
    const fromCounters = (stats: TopicStats[]): Map<string, Record<string, number>> =>
      new Map(
        stats.map((s) => [s.topic, Object.fromEntries(Object.entries(s.counts).filter(([, n]) => n > 0))] as const),
      );

    it('agree with a GROUP BY after pushes, loads, ends and purges from three processes at once', async () => {
      const stores = [await make(), await make(), await make()];
      const now = clock.now();
      const topics = ['c.a', 'c.b', 'c.c'];
      // far-future jobs (journal-only), some near ones (loaded), from every process at once
      const jobs = topics.flatMap((topic, t) =>
        Array.from({ length: 300 }, (_, i) => aJob({ topic, now, delayMs: i % 3 === 0 ? 1000 : (t + 1) * HOUR + i })),
      );
      await Promise.all(
        stores.map((s, k) =>
          s.pushMany(
            jobs.filter((_, i) => i % 3 === k),
            now,
          ),
        ),
      );
      expect(fromCounters(await stores[0]!.journal.statsJournalOnly())).toEqual(await grouped());

      // some journal-only jobs cancelled (they stay journal-only, now cancelled), some loaded into the inner store
      const far = jobs.filter((_, i) => i % 3 !== 0);
      await Promise.all(far.slice(0, 60).map((j, i) => stores[i % 3]!.cancel(j.id, now + 1)));
      const loaded = await Promise.all(stores.map((s) => s.loadDue(now + 2 * HOUR, 200)));
      expect(loaded.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(fromCounters(await stores[1]!.journal.statsJournalOnly())).toEqual(await grouped());

      // rows deleted (the journal's retention) and one changed by hand in place
      await db.query(`DELETE FROM delayq_jobs WHERE state = 'cancelled'`);
      await db.query(`UPDATE delayq_jobs SET topic = 'c.moved' WHERE id = '${far[100]!.id}'`);
      const stats = await stores[2]!.journal.statsJournalOnly();
      expect(fromCounters(stats)).toEqual(await grouped());
      // the next due time of a topic whose delayed jobs are all journal-only
      const first = await db.query<{ at: unknown }>(
        `SELECT MIN(run_at) AS at FROM delayq_jobs WHERE loaded = 0 AND state = 'delayed' AND topic = 'c.c'`,
      );
      expect(stats.find((s) => s.topic === 'c.c')!.nextDueAt).toBe(Number(first[0]!.at));
    });

    it('are read from the counters, which the reader folds into one row per topic and state', async () => {
      const store = await make();
      const now = clock.now();
      await store.pushMany(
        Array.from({ length: 50 }, (_, i) => aJob({ topic: 'fold', now, delayMs: HOUR + i })),
        now,
      );
      // many writers' slots: as many connections would leave behind (negative, so that no live connection's
      // own slot, its backend pid or connection id, can be one of them)
      const values = Array.from({ length: 400 }, (_, i) => `('fold', 'delayed', ${-1 - i}, ${i % 2 ? 1 : -1})`);
      await db.query(`INSERT INTO delayq_journal_counts (topic, state, slot, n) VALUES ${values.join(', ')}`);
      // the answer is the counters' (400 slots of +1 and −1: no change), and the read folds them
      expect((await store.journal.statsJournalOnly()).find((s) => s.topic === 'fold')!.counts.delayed).toBe(50);
      const rows = await db.query<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM delayq_journal_counts WHERE topic = 'fold'`,
      );
      expect(Number(rows[0]!.n)).toBe(1);
      expect((await store.journal.statsJournalOnly()).find((s) => s.topic === 'fold')!.counts.delayed).toBe(50);
      // a counter is what the answer reads: changed by hand, the answer follows
      await db.query(`UPDATE delayq_journal_counts SET n = n + 7 WHERE topic = 'fold'`);
      expect((await store.journal.statsJournalOnly()).find((s) => s.topic === 'fold')!.counts.delayed).toBe(57);
    });
  });
}
