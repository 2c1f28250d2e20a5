import type { EpochMs } from '../../core/clock.js';
import type { DueCursor, JournalJob } from '../journal.js';
import type { Db } from './dialect.js';
import { rowsToJournalJobs } from './schema.js';

/**
 * The two scans of a full restore (Journal.listLoaded, Journal.listJournalOnlyDue). Each reads one index range of
 * the rows it wants, so a restore costs what the inner store held, not the journal-only backlog beyond the horizon.
 */

/** The unfinished rows handed to the inner store, by id: delayq_jobs_loaded (PostgreSQL 010, MySQL 011). */
export async function listLoaded(db: Db, afterId: string | null, limit: number): Promise<JournalJob[]> {
  let q = db.selectFrom('delayq_jobs').selectAll().where('loaded', '=', 1).where('finished_at', 'is', null);
  if (afterId !== null) q = q.where('id', '>', afterId);
  return rowsToJournalJobs(await q.orderBy('id').limit(limit).execute());
}

/**
 * The journal-only unfinished rows due before `before`, by (run_at, id): the loader's claim set, read from its
 * index (delayq_jobs_to_load). The due time bounds the range; the id orders rows due at the same instant.
 */
export async function listJournalOnlyDue(
  db: Db,
  before: EpochMs,
  after: DueCursor | null,
  limit: number,
): Promise<JournalJob[]> {
  let q = db
    .selectFrom('delayq_jobs')
    .selectAll()
    .where('loaded', '=', 0)
    .where('finished_at', 'is', null)
    .where('run_at', '<', before);
  if (after !== null) {
    q = q
      .where('run_at', '>=', after.runAt)
      .where((eb) => eb.or([eb('run_at', '>', after.runAt), eb('id', '>', after.id)]));
  }
  return rowsToJournalJobs(await q.orderBy('run_at').orderBy('id').limit(limit).execute());
}
