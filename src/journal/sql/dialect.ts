import type { Kysely } from 'kysely';
import type { RowBatch } from './batch.js';
import type { JobState } from '../../core/job.js';
import type { SharedHistory } from '../journal.js';
import type { JournalDatabase } from './schema.js';

export type Db = Kysely<JournalDatabase>;

/** JournalDialect.writeBatch's answer: JournalWritten as the driver gives it. */
export interface BatchWritten {
  created: string[];
  /** Each guarded upsert written, with its row's token after the write; null: not reported (read it back). */
  claimed: { id: string; token: string | null }[] | null;
}

/** What differs between PostgreSQL and MySQL/MariaDB; everything else is shared Kysely code (sql/sql-journal.ts). */
export interface JournalDialect {
  readonly name: 'postgres' | 'mysql';
  readonly migrationsDir: URL;
  /** Runs before migrations (e.g. CREATE SCHEMA). */
  prepare(db: Db): Promise<void>;
  /** Serializes migrations across processes (advisory lock / GET_LOCK) around `run`. */
  withMigrationLock<T>(db: Db, run: (conn: Db) => Promise<T>): Promise<T>;
  /**
   * Writes the parts of one batch in one transaction, in one round trip when there is one part
   * (PostgreSQL: one statement of data-modifying CTEs; MySQL: one multi-statement packet), and
   * resolves with the ids of the inserted jobs that did not exist before and, where the database can say so in
   * the same statement (PostgreSQL's RETURNING), the guarded upserts it wrote (JournalWritten.claimed).
   */
  writeBatch(parts: readonly RowBatch[]): Promise<BatchWritten>;
  /** Journal.appendHistory: the ids and states go as two columns (PostgreSQL arrays, MySQL a JSON table). */
  appendHistory(db: Db, ids: readonly string[], states: readonly JobState[], shared: SharedHistory): Promise<void>;
  /** Readies the job table for a restore's full keyset scan (see Journal.prepareRestoreScan). */
  prepareRestoreScan(db: Db): Promise<void>;
}
