// The SQLite store's topic_counts table (migration 048): pushes and its triggers keep it equal to a count of
// the jobs through every kind of statement that adds, moves or deletes jobs, and the migration fills it for a file that
// already held jobs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-topic-counts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 0, 1);

const dbOf = (store: SqliteStore): Database.Database => (store as unknown as { db: Database.Database }).db;

/** Counted from the jobs, and as kept in the table (rows at 0 left out), in one order. */
function bothCounts(db: Database.Database) {
  const counted = db.prepare('SELECT topic, state, COUNT(*) AS n FROM jobs GROUP BY topic, state ORDER BY 1, 2').all();
  const kept = db.prepare('SELECT topic, state, n FROM topic_counts WHERE n <> 0 ORDER BY 1, 2').all();
  return { counted, kept };
}

describe('SqliteStore topic counts', () => {
  it('stay equal to a count of the jobs through push, upsert, run now, promote, reserve, finish, retry, bury, cancel and purge', async () => {
    const store = new SqliteStore({ path: join(dir, 'moves.db'), nodeId: 'n' });
    await store.open();
    try {
      const jobs = Array.from({ length: 40 }, (_, i) =>
        aJob({ topic: i % 2 ? 'mail' : 'orders', now: T0, delayMs: i < 30 ? 1_000 * i : 3_600_000 }),
      );
      await store.pushMany(jobs, T0);
      await store.promoteDue(T0 + 20_000, 100);
      const { reservations } = await store.reserve(['mail', 'orders'], 6, T0 + 20_000);
      expect(reservations).toHaveLength(6);
      const [a, b, c, d] = reservations;
      await store.finish(a!.job.id, a!.token, T0 + 20_001);
      await store.retry(b!.job.id, b!.token, T0 + 20_001, { runAt: T0 + 90_000, error: 'later' });
      await store.bury(c!.job.id, c!.token, T0 + 20_001, { error: 'dead' });
      await store.release(d!.job.id, d!.token, T0 + 20_001);
      await store.cancel(jobs[35]!.id, T0 + 20_002);
      expect((await store.runNow(jobs[36]!.id, T0 + 20_002)).ok).toBe(true);
      // Pushed again with onExists replace, due now: the waiting job turns ready in place.
      await store.pushMany([{ ...jobs[37]!, runAt: T0, onExists: { mode: 'replace' as const } }], T0 + 20_002);
      expect((await store.get(jobs[37]!.id))?.state).toBe('ready');
      await store.purge(T0 + 30_000, 100);
      const { counted, kept } = bothCounts(dbOf(store));
      expect(kept).toEqual(counted);
      expect(counted.length).toBeGreaterThan(4);
      const stats = await store.stats();
      expect(stats.map((s) => s.topic)).toEqual(['mail', 'orders']);
      expect(stats.reduce((sum, s) => sum + Object.values(s.counts).reduce((x, y) => x + y, 0), 0)).toBe(
        (dbOf(store).prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n,
      );
    } finally {
      await store.close();
    }
  });

  it('are filled by the migration for a file that held jobs before it', async () => {
    const path = join(dir, 'older.db');
    const first = new SqliteStore({ path, nodeId: 'n' });
    await first.open();
    await first.pushMany(
      Array.from({ length: 25 }, (_, i) => aJob({ topic: `t${i % 3}`, now: T0, delayMs: i % 2 ? 0 : 5_000 })),
      T0,
    );
    const before = await first.stats();
    await first.close();
    // As a delayq before migration 048 left the file.
    const raw = new Database(path);
    raw.exec(`DROP TRIGGER topic_counts_on_delete;
      DROP TRIGGER topic_counts_on_move; DROP TABLE topic_counts; DROP INDEX jobs_delayed_topic;
      DELETE FROM schema_migrations WHERE version = 48;`);
    raw.close();
    const again = new SqliteStore({ path, nodeId: 'n' });
    await again.open();
    try {
      const { counted, kept } = bothCounts(dbOf(again));
      expect(kept).toEqual(counted);
      expect(await again.stats()).toEqual(before);
      expect(before.map((s) => s.nextDueAt)).toEqual([T0 + 5_000, T0 + 5_000, T0 + 5_000]);
    } finally {
      await again.close();
    }
  });
});
