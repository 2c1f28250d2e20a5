import { sql, type Kysely } from 'kysely';
import { countsFromRows, type DueCounts, type DueHistogramQuery } from '../../store/due-histogram.js';
import type { JournalDatabase } from './schema.js';

/**
 * Journal-only delayed jobs (beyond the horizon, loaded = 0) per due-time bucket: one GROUP BY over
 * [from, to), read through the loader's index (delayq_jobs_to_load: loaded = 0, finished_at IS NULL, by
 * run_at), which the finished_at condition lets both dialects use. FLOOR of the division is the bucket on
 * both dialects (PostgreSQL divides bigints to an integer, MySQL to a decimal).
 */
export async function journalDueHistogram(db: Kysely<JournalDatabase>, query: DueHistogramQuery): Promise<DueCounts> {
  let select = db
    .selectFrom('delayq_jobs')
    .select([
      sql<string>`floor((run_at - ${query.from}) / ${query.bucketMs})`.as('b'),
      (eb) => eb.fn.countAll<string>().as('n'),
    ])
    .where('loaded', '=', 0)
    .where('finished_at', 'is', null)
    .where('state', '=', 'delayed')
    .where('run_at', '>=', query.from)
    .where('run_at', '<', query.to);
  if (query.topic) select = select.where('topic', '=', query.topic);
  const rows = await select.groupBy(sql`1`).execute();
  return countsFromRows(query, rows);
}
