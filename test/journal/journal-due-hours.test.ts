import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { splitByHours } from '../../src/journal/sql/due-histogram.js';
import type { DueHistogramQuery } from '../../src/store/due-histogram.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';

// The journal-only delayed jobs' due histogram takes whole hours from counters the database keeps as rows change
// (delayq_journal_due_hours), and only the hours an edge cuts from the rows: its answer must agree with a count
// of the rows after any mix of writes from several processes, on aligned and unaligned edges.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const MINUTE = 60_000;
const HOUR = 3_600_000;

describe('the split of a histogram into whole hours and pieces', () => {
  it('covers [from, to) once, hours inside one bucket, pieces merged where they touch', () => {
    const from = Date.UTC(2026, 0, 1) + 17 * MINUTE;
    const { whole, pieces } = splitByHours({ from, to: from + 50 * HOUR, bucketMs: 10 * HOUR });
    expect(whole.map((w) => w.endUnit - w.firstUnit)).toEqual([9, 9, 9, 9, 9]);
    // between two buckets the pieces of one cut hour meet and merge: one piece per cut hour, plus the ends
    expect(pieces).toHaveLength(6);
    const covered =
      whole.reduce((sum, w) => sum + (w.endUnit - w.firstUnit) * HOUR, 0) +
      pieces.reduce((sum, [lo, hi]) => sum + hi - lo, 0);
    expect(covered).toBe(50 * HOUR);
    // buckets shorter than an hour: no whole hour, one piece
    expect(splitByHours({ from, to: from + 2 * HOUR, bucketMs: MINUTE })).toEqual({
      whole: [],
      pieces: [[from, from + 2 * HOUR]],
    });
  });
});

for (const db of databases) {
  describe(`journal-only due histogram from counters (${db.dialect})`, () => {
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

    /** The histogram as a count of every journal-only delayed row would answer it. */
    const counted = async (query: DueHistogramQuery): Promise<number[]> => {
      const rows = await db.query<{ run_at: unknown }>(
        `SELECT run_at FROM delayq_jobs WHERE loaded = 0 AND state = 'delayed' AND finished_at IS NULL` +
          (query.topic ? ` AND topic = '${query.topic}'` : ''),
      );
      const counts = new Array<number>(Math.ceil((query.to - query.from) / query.bucketMs)).fill(0);
      for (const r of rows) {
        const at = Number(r.run_at);
        if (at >= query.from && at < query.to) counts[Math.floor((at - query.from) / query.bucketMs)]!++;
      }
      return counts;
    };
    const kept = async () =>
      (await db.query<{ n: unknown }>(`SELECT SUM(n) AS n FROM delayq_journal_due_hours`)).map((r) => Number(r.n))[0];

    it('agrees with a count of the rows after pushes, cancels, loads and deletes from three stores', async () => {
      const stores = [await make(), await make(), await make()];
      const now = clock.now();
      const topics = ['h.a', 'h.b'];
      const jobs = topics.flatMap((topic, t) =>
        Array.from({ length: 300 }, (_, i) =>
          aJob({ topic, now, delayMs: i % 5 === 0 ? 1000 : HOUR + t * 7 * MINUTE + i * 11 * MINUTE }),
        ),
      );
      await Promise.all(
        stores.map((s, k) =>
          s.pushMany(
            jobs.filter((_, i) => i % 3 === k),
            now,
          ),
        ),
      );
      const far = jobs.filter((_, i) => i % 5 !== 0);
      await Promise.all(far.slice(0, 40).map((j, i) => stores[i % 3]!.cancel(j.id, now + 1)));
      const loaded = await Promise.all(stores.map((s) => s.loadDue(now + 3 * HOUR, 100)));
      expect(loaded.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      await db.query(`DELETE FROM delayq_jobs WHERE id = '${far[200]!.id}'`);
      await db.query(`UPDATE delayq_jobs SET run_at = run_at + ${5 * HOUR} WHERE id = '${far[201]!.id}'`);

      const queries: DueHistogramQuery[] = [
        { from: now - (now % HOUR), to: now - (now % HOUR) + 72 * HOUR, bucketMs: 6 * HOUR },
        { topic: 'h.b', from: now + 17 * MINUTE, to: now + 60 * HOUR + 5_000, bucketMs: 7 * HOUR + 1 },
        { topic: 'h.a', from: now, to: now + 3 * HOUR, bucketMs: 5 * MINUTE },
        { from: now + 123_456, to: now + 70 * HOUR, bucketMs: 24 * HOUR },
      ];
      for (const query of queries) {
        const answer = await stores[0]!.journal.dueHistogramJournalOnly(query);
        expect(answer, JSON.stringify(query)).toEqual(await counted(query));
      }
      const all = await counted({ from: 0, to: now + 1000 * HOUR, bucketMs: 1000 * HOUR + now });
      expect(await kept()).toBe(all[0]);
      expect(all[0]).toBeGreaterThan(300);
    });

    it('takes whole hours from the counters, folding many writers’ slots into one row per topic and hour', async () => {
      const store = await make();
      const now = clock.now();
      const start = now - (now % HOUR) + 2 * HOUR;
      await store.pushMany(
        Array.from({ length: 48 }, (_, i) => aJob({ topic: 'fold', now, delayMs: start - now + i * 30 * MINUTE })),
        now,
      );
      const query = { topic: 'fold', from: start, to: start + 24 * HOUR, bucketMs: 4 * HOUR };
      const truth = await counted(query);
      expect(truth).toEqual([8, 8, 8, 8, 8, 8]);
      // 2,000 writers' slots of +1 and −1 on one hour: no change to the answer, and the read folds them
      const hour = start / HOUR + 5;
      const values = Array.from({ length: 2000 }, (_, i) => `('fold', ${hour}, ${-1 - i}, ${i % 2 ? 1 : -1})`);
      await db.query(`INSERT INTO delayq_journal_due_hours (topic, hour, slot, n) VALUES ${values.join(', ')}`);
      expect(await store.journal.dueHistogramJournalOnly(query)).toEqual(truth);
      const rows = await db.query<{ n: unknown }>(
        `SELECT COUNT(*) AS n FROM delayq_journal_due_hours WHERE topic = 'fold'`,
      );
      expect(Number(rows[0]!.n)).toBe(24);
      // a counter is what the answer reads for a whole hour: changed by hand, the answer follows
      await db.query(`UPDATE delayq_journal_due_hours SET n = n + 7 WHERE topic = 'fold' AND hour = ${hour}`);
      expect(await store.journal.dueHistogramJournalOnly(query)).toEqual([8, 15, 8, 8, 8, 8]);
    });
  });
}
