import { sql } from 'kysely';
import type { NumberedId } from '../../store/job-numbers.js';
import { MAX_ROWS_PER_STATEMENT } from './batch.js';
import type { Db } from './dialect.js';

/**
 * Journal.claimNumbers: one UPDATE per slice sets the number of each row that has none (a CASE over the ids);
 * when some row did not take it (it had one, or is not in the journal), one SELECT reads the numbers that stand.
 */
export async function claimNumbers(db: Db, numbers: readonly NumberedId[]): Promise<Map<string, number>> {
  const standing = new Map<string, number>();
  for (let i = 0; i < numbers.length; i += MAX_ROWS_PER_STATEMENT) {
    const slice = numbers.slice(i, i + MAX_ROWS_PER_STATEMENT);
    const ids = slice.map((n) => n.id);
    // The numbers are written as literals (safe integers): a parameter would be text to PostgreSQL's CASE.
    const cases = sql.join(
      slice.map((n) => sql`WHEN ${n.id} THEN ${sql.lit(Math.trunc(n.number))}`),
      sql` `,
    );
    const updated = await db
      .updateTable('delayq_jobs')
      .set({ job_number: sql<number>`CASE id ${cases} END` })
      .where('id', 'in', ids)
      .where('job_number', 'is', null)
      .executeTakeFirst();
    // Every row took its number (a new job's first number: the usual case): nothing else to read.
    if (Number(updated.numUpdatedRows) === new Set(ids).size) {
      for (const n of slice) standing.set(n.id, n.number);
      continue;
    }
    const rows = await db
      .selectFrom('delayq_jobs')
      .select(['id', 'job_number'])
      .where('id', 'in', ids)
      .where('job_number', 'is not', null)
      .execute();
    for (const r of rows) standing.set(r.id, Number(r.job_number));
  }
  return standing;
}

/** Journal.idOfNumber. */
export async function idOfNumber(db: Db, number: number): Promise<string | null> {
  const row = await db.selectFrom('delayq_jobs').select('id').where('job_number', '=', number).executeTakeFirst();
  return row?.id ?? null;
}
