// The journal's restore: `count` unfinished jobs written straight into a fresh journal (PostgreSQL schema or
// MariaDB database of its own), then restored into the benchmark's empty Redis, timed. run.ts registers it
// as the `restore` scenario (1M jobs in full mode, a few thousand in quick mode).
import { Redis } from 'ioredis';
import { JournaledStore } from '../src/journal/journaled-store/journaled-store.js';
import type { Journal, JournalJob } from '../src/journal/journal.js';
import { newJournalJob } from '../src/journal/journal-jobs.js';
import { MysqlJournal } from '../src/journal/sql/mysql/mysql-journal.js';
import { PostgresJournal } from '../src/journal/sql/postgres/postgres-journal.js';
import { DEFAULT_RETRY_POLICY } from '../src/config.js';
import { RedisStore } from '../src/store/redis/redis-store.js';
import type { Results } from './results.js';
import { bodyFor } from './subject.js';
import { dropSqlDatabase, newSqlDatabase, type SqlTarget } from './subjects/sql-databases.js';

export interface RestoreResult {
  /** Seconds to write the rows straight into the journal (not part of the restore). */
  fillS: number;
  restoreS: number;
  jobsPerS: number;
  restored: number;
}

const FILL_BATCH = 10_000;

/** Writes `count` unfinished, loaded jobs straight into the journal (the state a Redis loss leaves behind). */
export async function fillJournal(journal: Journal, count: number, now: number): Promise<void> {
  for (let i = 0; i < count; i += FILL_BATCH) {
    const rows: JournalJob[] = [];
    for (let k = i; k < Math.min(count, i + FILL_BATCH); k++) {
      const runAt = now + 60_000 + (k % 3_000_000);
      const job = {
        id: `restore-${k}`,
        topic: 'bench',
        tag: null,
        bizKey: null,
        body: JSON.stringify(bodyFor(runAt)),
        runAt,
        priority: 0,
        ttrMs: 30_000,
        ttlMs: null,
        retry: DEFAULT_RETRY_POLICY,
      };
      rows.push(newJournalJob(job, now, true));
    }
    await journal.write({ inserts: rows, upserts: [], history: [], pushedBy: 'bench' });
  }
}

/** Fills a fresh journal with `count` jobs, empties the Redis, and times one full restore. */
export async function restoreScenario(redisPort: number, sql: SqlTarget, count: number): Promise<RestoreResult> {
  const name = await newSqlDatabase(sql);
  const admin = new Redis({ host: '127.0.0.1', port: redisPort, lazyConnect: true });
  let store: JournaledStore | undefined;
  try {
    await admin.connect();
    await admin.flushall(); // the benchmark's own Redis, never the shared 6379
    const redis = new RedisStore({ url: `redis://127.0.0.1:${redisPort}`, nodeId: 'bench', commandTimeoutMs: 30_000 });
    const journal =
      sql.dialect === 'postgres'
        ? new PostgresJournal({ connectionString: sql.url, schema: name })
        : new MysqlJournal({ uri: `${sql.url}/${name}` });
    store = new JournaledStore(redis, journal, { nodeId: 'bench', clock: redis.clock });
    await store.open();
    const now = store.clock.now();
    const t0 = performance.now();
    await fillJournal(journal, count, now);
    const fillS = (performance.now() - t0) / 1000;
    await admin.flushall(); // Redis lost everything: the restore starts from empty
    const summary = await store.restore({ expire: true }, store.clock.now());
    if (summary.restored !== count) throw new Error(`restored ${summary.restored} of ${count} jobs`);
    const restoreS = summary.durationMs / 1000;
    return { fillS, restoreS, jobsPerS: count / restoreS, restored: summary.restored };
  } finally {
    await store?.close();
    await admin.quit().catch(() => undefined);
    await dropSqlDatabase(sql, name);
  }
}

/** The `restore` scenario of run.ts: one restore per database, its figures under the scenario `restore`. */
export async function measureRestore(
  results: Results,
  failures: string[],
  redisPort: number,
  targets: readonly SqlTarget[],
  count: number,
): Promise<void> {
  for (const sql of targets) {
    const system = `delayq · Redis + ${sql.dialect === 'postgres' ? 'PostgreSQL' : 'MariaDB'}`;
    try {
      const r = await restoreScenario(redisPort, sql, count);
      for (const [metric, value] of Object.entries(r)) results.add('restore', system, metric, value);
    } catch (err) {
      failures.push(`restore · ${system}: ${(err as Error).message}`);
    }
  }
}
