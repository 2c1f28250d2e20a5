import type { EpochMs } from '../../core/clock.js';
import type { JournalJob } from '../journal.js';
import { MAX_ROWS_PER_STATEMENT } from './batch.js';
import type { Db } from './dialect.js';
import { rowsToJournalJobs } from './schema.js';

/** Journal.endedOrReservedAmong: one read per slice of ids, by primary key. */
export async function endedOrReservedAmong(db: Db, ids: readonly string[], now: EpochMs): Promise<JournalJob[]> {
  const found: JournalJob[] = [];
  for (let i = 0; i < ids.length; i += MAX_ROWS_PER_STATEMENT) {
    const rows = await db
      .selectFrom('delayq_jobs')
      .selectAll()
      .where('id', 'in', ids.slice(i, i + MAX_ROWS_PER_STATEMENT))
      .where((eb) =>
        eb.or([eb('finished_at', 'is not', null), eb.and([eb('state', '=', 'reserved'), eb('deadline_at', '>', now)])]),
      )
      .execute();
    found.push(...rowsToJournalJobs(rows));
  }
  return found;
}

/** Journal.listReserved: the first `limit` reserved rows in id order, one range of delayq_jobs_reserved. */
export async function listReserved(db: Db, limit: number): Promise<JournalJob[]> {
  const rows = await db
    .selectFrom('delayq_jobs')
    .selectAll()
    .where('finished_at', 'is', null)
    .where('state', '=', 'reserved')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rowsToJournalJobs(rows);
}
