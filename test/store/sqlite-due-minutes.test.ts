// The SQLite store's due_minutes counters (migration 051): pushes and triggers keep them equal to a count of the
// delayed jobs per topic and due minute through every statement that adds, moves or deletes jobs; the due histogram
// reads them for whole minutes and the index for the pieces of a minute at unaligned edges, and answers as a count
// of the jobs would, while reading no more than its minutes at a backlog where a walk of the jobs would show.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { DueHistogramQuery } from '../../src/store/due-histogram.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-due-minutes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

const dbOf = (store: SqliteStore): Database.Database => (store as unknown as { db: Database.Database }).db;

/** Counted from the jobs, and as kept in the table, in one order. */
function bothCounts(db: Database.Database) {
  const counted = db
    .prepare(
      `SELECT topic, run_at / 60000 AS minute, COUNT(*) AS n FROM jobs WHERE state = 'delayed' GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .all();
  const kept = db.prepare('SELECT topic, minute, n FROM due_minutes ORDER BY 1, 2').all();
  return { counted, kept };
}

/** The histogram as a walk of every delayed job would answer it. */
function walked(db: Database.Database, query: DueHistogramQuery): number[] {
  const runAts = db
    .prepare(`SELECT run_at FROM jobs WHERE state = 'delayed' AND (? IS NULL OR topic = ?)`)
    .pluck()
    .all(query.topic ?? null, query.topic ?? null) as number[];
  const counts = new Array<number>(Math.ceil((query.to - query.from) / query.bucketMs)).fill(0);
  for (const at of runAts)
    if (at >= query.from && at < query.to) counts[Math.floor((at - query.from) / query.bucketMs)]!++;
  return counts;
}

describe('SqliteStore due minutes', () => {
  it('stay equal to a count of the delayed jobs through push, upsert, run now, promote, retry, cancel and purge', async () => {
    const store = new SqliteStore({ path: join(dir, 'moves.db'), nodeId: 'n' });
    await store.open();
    try {
      const jobs = Array.from({ length: 60 }, (_, i) =>
        aJob({ topic: i % 2 ? 'mail' : 'orders', now: T0, delayMs: i < 30 ? 7_000 * i : 3_600_000 + 13_000 * i }),
      );
      await store.pushMany(jobs, T0);
      await store.promoteDue(T0 + 70_000, 100);
      const { reservations } = await store.reserve(['mail', 'orders'], 4, T0 + 70_000);
      expect(reservations).toHaveLength(4);
      const [a, b] = reservations;
      await store.retry(a!.job.id, a!.token, T0 + 70_001, { runAt: T0 + 190_000, error: 'later' });
      await store.finish(b!.job.id, b!.token, T0 + 70_001);
      await store.cancel(jobs[35]!.id, T0 + 70_002);
      expect((await store.runNow(jobs[36]!.id, T0 + 70_002)).ok).toBe(true);
      // Pushed again: extended by its delay (a new due minute), replaced to a later one, replaced to due now.
      await store.pushMany(
        [
          { ...jobs[40]!, runAt: T0 + 7_200_000, onExists: { mode: 'extend' as const, maxWaitMs: null } },
          { ...jobs[41]!, runAt: T0 + 9_000_000, onExists: { mode: 'replace' as const } },
          { ...jobs[42]!, runAt: T0, onExists: { mode: 'replace' as const } },
        ],
        T0 + 70_002,
      );
      expect((await store.get(jobs[42]!.id))?.state).toBe('ready');
      await store.purge(T0 + 80_000, 100);
      const { counted, kept } = bothCounts(dbOf(store));
      expect(kept).toEqual(counted);
      expect(counted.length).toBeGreaterThan(20);
      // Nothing at 0 is kept: the promoted minutes are gone.
      expect(dbOf(store).prepare('SELECT COUNT(*) FROM due_minutes WHERE n <= 0').pluck().get()).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('answer the histogram as a walk of the jobs would, on whole-minute and on unaligned edges', async () => {
    const store = new SqliteStore({ path: join(dir, 'edges.db'), nodeId: 'n' });
    await store.open();
    try {
      // Due times spread over 3 hours at 1.7 s steps, two topics.
      const jobs = Array.from({ length: 6_000 }, (_, i) =>
        aJob({ topic: i % 3 ? 'mail' : 'orders', now: T0, delayMs: 1_000 + 1_700 * i }),
      );
      await store.pushMany(jobs, T0);
      const db = dbOf(store);
      const queries: DueHistogramQuery[] = [
        { from: T0, to: T0 + 3 * 3_600_000, bucketMs: 3_600_000 },
        { topic: 'mail', from: T0, to: T0 + 3 * 3_600_000, bucketMs: 600_000 },
        { from: T0 + 12_345, to: T0 + 9_876_543, bucketMs: 1_234_567 },
        { topic: 'orders', from: T0 + 59_999, to: T0 + 7_300_001, bucketMs: 61_000 },
        { from: T0 + 30_000, to: T0 + 200_000, bucketMs: 7_000 },
        { topic: 'none', from: T0, to: T0 + 3_600_000, bucketMs: MINUTE },
      ];
      for (const query of queries)
        expect(await store.dueHistogram(query), JSON.stringify(query)).toEqual(walked(db, query));
    } finally {
      await store.close();
    }
  });

  it('are what the histogram reads for whole minutes; only the edge minutes are counted from the jobs', async () => {
    const store = new SqliteStore({ path: join(dir, 'cost.db'), nodeId: 'n' });
    await store.open();
    try {
      // 50k jobs, 25 per due minute over 2,000 minutes.
      for (let start = 0; start < 50_000; start += 5_000) {
        const batch = Array.from({ length: 5_000 }, (_, k) =>
          aJob({ topic: 't', now: T0, delayMs: 1_000 + (start + k) * 2_400 }),
        );
        await store.pushMany(batch, T0);
      }
      const db = dbOf(store);
      const query = { from: T0 + 30_000, to: T0 + 2_000 * MINUTE + 30_000, bucketMs: 100 * MINUTE };
      const truth = walked(db, query);
      expect(truth.reduce((x, y) => x + y, 0)).toBeGreaterThan(49_900);
      expect(await store.dueHistogram(query)).toEqual(truth);
      // A counter changed by hand shows in the answer when its minute is whole inside a bucket, and not when an
      // edge cuts its minute (those jobs are counted from the index): the read takes whole minutes from the
      // counters, never from the 50k jobs.
      const minuteOf = (at: number) => Math.floor(at / MINUTE);
      const inside = minuteOf(T0 + 150 * MINUTE);
      const cutByEdge = minuteOf(query.from + 100 * MINUTE);
      db.prepare('UPDATE due_minutes SET n = n + 1000 WHERE topic = ? AND minute IN (?, ?)').run(
        't',
        inside,
        cutByEdge,
      );
      const tampered = await store.dueHistogram(query);
      expect(tampered[1]).toBe(truth[1]! + 1000);
      expect(tampered.filter((n, i) => i !== 1)).toEqual(truth.filter((n, i) => i !== 1));
    } finally {
      await store.close();
    }
  });

  it('are filled by the migration for a file that held jobs before it', async () => {
    const path = join(dir, 'older.db');
    const first = new SqliteStore({ path, nodeId: 'n' });
    await first.open();
    await first.pushMany(
      Array.from({ length: 30 }, (_, i) => aJob({ topic: `t${i % 3}`, now: T0, delayMs: i % 2 ? 0 : 20_000 * i })),
      T0,
    );
    await first.close();
    // As a delayq before migration 051 left the file.
    const raw = new Database(path);
    raw.exec(`DROP TRIGGER due_minutes_on_delete; DROP TRIGGER due_minutes_on_move; DROP TABLE due_minutes;
      DELETE FROM schema_migrations WHERE version = 51;`);
    raw.close();
    const again = new SqliteStore({ path, nodeId: 'n' });
    await again.open();
    try {
      const { counted, kept } = bothCounts(dbOf(again));
      expect(kept).toEqual(counted);
      expect(counted.length).toBeGreaterThan(5);
    } finally {
      await again.close();
    }
  });
});
