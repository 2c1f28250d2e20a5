/**
 * What the SQL journal keeps of a job after it ends: consumers' outcomes in delayq_job_outcomes (migration
 * 002), and the deletion of ended jobs by id (bulk delete, retention "keep none"). SqlJournal wires these.
 */
import type { Kysely } from 'kysely';
import type { JournalDatabase } from './schema.js';

type Db = Kysely<JournalDatabase>;

export async function saveOutcome(db: Db, id: string, outcome: string, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('delayq_job_outcomes').where('job_id', '=', id).execute();
    await trx.insertInto('delayq_job_outcomes').values({ job_id: id, outcome, updated_at: now }).execute();
  });
}

export async function outcomeOf(db: Db, id: string): Promise<string | null> {
  const row = await db.selectFrom('delayq_job_outcomes').select('outcome').where('job_id', '=', id).executeTakeFirst();
  return row?.outcome ?? null;
}

/** Deletes ended jobs (finished_at set) by id, with their history and outcome; returns how many. */
export async function deleteEnded(db: Db, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return db.transaction().execute(async (trx) => {
    const gone = (
      await trx
        .selectFrom('delayq_jobs')
        .select('id')
        .where('id', 'in', [...ids])
        .where('finished_at', 'is not', null)
        .execute()
    ).map((r) => r.id);
    if (gone.length === 0) return 0;
    const deleted = await trx
      .deleteFrom('delayq_jobs')
      .where('id', 'in', gone)
      .where('finished_at', 'is not', null)
      .executeTakeFirst();
    await trx.deleteFrom('delayq_job_history').where('job_id', 'in', gone).execute();
    await trx.deleteFrom('delayq_job_outcomes').where('job_id', 'in', gone).execute();
    return Number(deleted.numDeletedRows);
  });
}
