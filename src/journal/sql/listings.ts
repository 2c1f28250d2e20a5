/** The SQL journal's part of the due-time listing: the far-future jobs only it holds. SqlJournal wires this. */
import type { Kysely } from 'kysely';
import type { JobRow, JournalDatabase } from './schema.js';

type Db = Kysely<JournalDatabase>;

/** Journal-only delayed jobs with run_at in [from, to) after (at, id), by (run_at, id): far-future jobs. */
export async function listDueJournalOnly(
  db: Db,
  query: { topic?: string | undefined; from: number; to: number; at: number; id: string; limit: number },
): Promise<JobRow[]> {
  let q = db
    .selectFrom('delayq_jobs')
    .selectAll()
    .where('loaded', '=', 0)
    .where('finished_at', 'is', null)
    .where('state', '=', 'delayed')
    .where('run_at', '>=', query.from)
    .where('run_at', '<', query.to)
    .where((eb) =>
      eb.or([eb('run_at', '>', query.at), eb.and([eb('run_at', '=', query.at), eb('id', '>', query.id)])]),
    );
  if (query.topic !== undefined) q = q.where('topic', '=', query.topic);
  return q.orderBy('run_at').orderBy('id').limit(query.limit).execute();
}
