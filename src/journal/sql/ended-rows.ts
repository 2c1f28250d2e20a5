// Ended and unfinished rows of the SQL journal, many at a time: the purge of jobs that ended before a cut (with
// their history and outcomes), and clear-all's cancel of every unfinished job, a batch per call.
import type { EpochMs } from '../../core/clock.js';
import type { Db } from './dialect.js';

/** Deletes up to `limit` jobs that ended before `before`, with their history and outcomes; how many went. */
export function purgeEnded(db: Db, before: EpochMs, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const ids = (
      await trx
        .selectFrom('delayq_jobs')
        .select('id')
        .where('finished_at', 'is not', null)
        .where('finished_at', '<', before)
        .orderBy('finished_at')
        .limit(limit)
        .execute()
    ).map((r) => r.id);
    if (!ids.length) return 0;
    // finished_at IS NOT NULL again in the DELETE: a redrive in between makes the job live: keep it.
    const deleted = await trx
      .deleteFrom('delayq_jobs')
      .where('id', 'in', ids)
      .where('finished_at', 'is not', null)
      .executeTakeFirst();
    await trx.deleteFrom('delayq_job_history').where('job_id', 'in', ids).execute();
    await trx.deleteFrom('delayq_job_outcomes').where('job_id', 'in', ids).execute();
    return Number(deleted.numDeletedRows);
  });
}

/** Cancels up to `limit` unfinished jobs, in id order; their ids. */
export function cancelAllUnfinished(db: Db, now: EpochMs, limit: number): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const ids = (
      await trx
        .selectFrom('delayq_jobs')
        .select('id')
        .where('finished_at', 'is', null)
        .orderBy('id')
        .limit(limit)
        .forUpdate()
        .execute()
    ).map((r) => r.id);
    if (ids.length) {
      await trx
        .updateTable('delayq_jobs')
        .set({ state: 'cancelled', finished_at: now, updated_at: Date.now() })
        .where('id', 'in', ids)
        .where('finished_at', 'is', null)
        .execute();
    }
    return ids;
  });
}
