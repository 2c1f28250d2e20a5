import Database from 'better-sqlite3';
import { DEFAULTS } from '../../src/config.js';
import { migrate } from '../../src/store/sqlite/migrate.js';

/**
 * Writes `jobs` jobs straight into an embedded store's file in one INSERT … SELECT over a recursive CTE, the
 * topic counters rebuilt from them: 4 topics, mostly delayed (due from a day after `at` on), 1 % ready,
 * 1 % finished, 0.1 % reserved. No history rows: a start reads none.
 */
export function seedSqliteBacklog(path: string, jobs: number, at: number): void {
  const db = new Database(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    migrate(db);
    db.transaction(() => {
      db.prepare(
        `WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < @jobs)
        INSERT INTO jobs (id, topic, body, state, run_at, priority, ttr_ms, retry, created_at, finished_at,
          deadline_at, token)
        SELECT printf('seed-%010d', i), 'topic-' || (i % 4), '{}',
          CASE WHEN i % 100 = 0 THEN 'ready' WHEN i % 100 = 1 THEN 'finished'
               WHEN i % 1000 = 2 THEN 'reserved' ELSE 'delayed' END,
          @at + 86400000 + i, 0, 30000, @retry, @at,
          CASE WHEN i % 100 = 1 THEN @at END,
          CASE WHEN i % 1000 = 2 THEN @at + 3600000 END,
          CASE WHEN i % 1000 = 2 THEN 'seed-token-' || i END
        FROM k`,
      ).run({ jobs, at, retry: JSON.stringify(DEFAULTS.jobs.retry) });
      db.exec('DELETE FROM topic_counts');
      db.exec(
        'INSERT INTO topic_counts (topic, state, n) SELECT topic, state, COUNT(*) FROM jobs GROUP BY topic, state',
      );
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
