import { sql, type Kysely } from 'kysely';
import { bucketCount, countsFromRows, type DueCounts, type DueHistogramQuery } from '../../store/due-histogram.js';
import type { JournalDatabase } from './schema.js';

/** The width of the delayq_journal_due_hours counters (PostgreSQL migration 012, MySQL 013). */
export const DUE_HOUR_MS = 3_600_000;

/** Counter rows beyond one per topic and hour in range before a read folds the writers' slots into slot 0. */
const FOLD_AFTER_EXTRA_ROWS = 1024;
/** Folded rows per INSERT on MySQL. */
const FOLD_INSERT_ROWS = 500;

/**
 * Journal-only delayed jobs (beyond the horizon, loaded = 0) per due-time bucket: each bucket's whole hours
 * summed from delayq_journal_due_hours (triggers keep them as rows change), the pieces of an hour its edges cut
 * counted in one GROUP BY over the loader's index (delayq_jobs_to_load: loaded = 0, finished_at IS NULL, by
 * run_at). The cost follows the hours in [from, to) and the jobs in the cut hours, not the journal's backlog.
 */
export async function journalDueHistogram(
  db: Kysely<JournalDatabase>,
  dialect: 'postgres' | 'mysql',
  query: DueHistogramQuery,
): Promise<DueCounts> {
  const { whole, pieces } = splitByHours(query);
  const [fromCounters, fromJobs] = await Promise.all([
    whole.length ? hourCounts(db, dialect, query, whole) : [],
    pieces.length ? pieceCounts(db, query, pieces) : [],
  ]);
  const counts = countsFromRows(query, fromJobs);
  for (const { hour, n } of fromCounters) {
    const bucket = bucketOfHour(whole, hour);
    if (bucket !== undefined) counts[bucket]! += n;
  }
  return counts;
}

/** The bucket whose whole hours hold `hour` (whole is in hour order), by binary search. */
function bucketOfHour(whole: readonly WholeHours[], hour: number): number | undefined {
  let lo = 0;
  let hi = whole.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const w = whole[mid]!;
    if (hour < w.firstHour) hi = mid - 1;
    else if (hour >= w.endHour) lo = mid + 1;
    else return w.bucket;
  }
  return undefined;
}

interface WholeHours {
  bucket: number;
  firstHour: number;
  endHour: number;
}

/** Each bucket as its whole hours (from the counters) and the ranges left at its edges (from the jobs), merged. */
export function splitByHours(query: DueHistogramQuery): { whole: WholeHours[]; pieces: [number, number][] } {
  const whole: WholeHours[] = [];
  const pieces: [number, number][] = [];
  const piece = (lo: number, hi: number) => {
    if (lo >= hi) return;
    const last = pieces[pieces.length - 1];
    if (last && last[1] === lo) last[1] = hi;
    else pieces.push([lo, hi]);
  };
  for (let i = 0; i < bucketCount(query); i++) {
    const lo = query.from + i * query.bucketMs;
    const hi = Math.min(lo + query.bucketMs, query.to);
    const firstHour = Math.ceil(lo / DUE_HOUR_MS);
    const endHour = Math.floor(hi / DUE_HOUR_MS);
    if (firstHour >= endHour) {
      piece(lo, hi);
      continue;
    }
    piece(lo, firstHour * DUE_HOUR_MS);
    whole.push({ bucket: i, firstHour, endHour });
    piece(endHour * DUE_HOUR_MS, hi);
  }
  return { whole, pieces };
}

async function hourCounts(
  db: Kysely<JournalDatabase>,
  dialect: 'postgres' | 'mysql',
  query: DueHistogramQuery,
  whole: readonly WholeHours[],
): Promise<{ hour: number; n: number }[]> {
  let select = db
    .selectFrom('delayq_journal_due_hours')
    .select('hour')
    .select((eb) => [
      eb.fn.sum<string | number>('n').as('n'),
      eb.fn.countAll<string | number>().as('slots'),
      sql<string | number>`count(distinct topic)`.as('topics'),
    ])
    .where('hour', '>=', whole[0]!.firstHour)
    .where('hour', '<', whole[whole.length - 1]!.endHour);
  if (query.topic) select = select.where('topic', '=', query.topic);
  const rows = await select.groupBy('hour').execute();
  const extraSlots = rows.reduce((sum, r) => sum + Number(r.slots) - Number(r.topics), 0);
  if (extraSlots > FOLD_AFTER_EXTRA_ROWS) await foldDueHourSlots(db, dialect);
  return rows.map((r) => ({ hour: Number(r.hour), n: Number(r.n) }));
}

/** The ranges no whole hour covers, counted per bucket from the jobs: one GROUP BY over the loader's index. */
async function pieceCounts(
  db: Kysely<JournalDatabase>,
  query: DueHistogramQuery,
  pieces: readonly [number, number][],
): Promise<{ b: string | number; n: string | number }[]> {
  let select = db
    .selectFrom('delayq_jobs')
    .select([
      sql<string>`floor((run_at - ${query.from}) / ${query.bucketMs})`.as('b'),
      (eb) => eb.fn.countAll<string>().as('n'),
    ])
    .where('loaded', '=', 0)
    .where('finished_at', 'is', null)
    .where('state', '=', 'delayed')
    .where((eb) => eb.or(pieces.map(([lo, hi]) => eb.and([eb('run_at', '>=', lo), eb('run_at', '<', hi)]))));
  if (query.topic) select = select.where('topic', '=', query.topic);
  return select.groupBy(sql`1`).execute();
}

/**
 * Moves every writer's slot into slot 0 and drops counters at 0, in one transaction (as foldSlots does for
 * delayq_journal_counts): a writer adds to its slot inside its own transaction, so a slot is folded once its
 * writer committed.
 */
export async function foldDueHourSlots(db: Kysely<JournalDatabase>, dialect: 'postgres' | 'mysql'): Promise<void> {
  if (dialect === 'postgres') {
    await sql`
      WITH gone AS (DELETE FROM delayq_journal_due_hours WHERE slot <> 0 RETURNING topic, hour, n)
      INSERT INTO delayq_journal_due_hours (topic, hour, slot, n)
        SELECT topic, hour, 0, sum(n) FROM gone GROUP BY topic, hour ORDER BY topic, hour
      ON CONFLICT (topic, hour, slot) DO UPDATE SET n = delayq_journal_due_hours.n + excluded.n`.execute(db);
  } else {
    await db.transaction().execute(async (trx) => {
      const rows = await sql<{ topic: string; hour: string | number; n: string | number }>`
        SELECT topic, hour, SUM(n) AS n FROM delayq_journal_due_hours WHERE slot <> 0
        GROUP BY topic, hour ORDER BY topic, hour FOR UPDATE`.execute(trx);
      await sql`DELETE FROM delayq_journal_due_hours WHERE slot <> 0`.execute(trx);
      for (let i = 0; i < rows.rows.length; i += FOLD_INSERT_ROWS) {
        const values = rows.rows
          .slice(i, i + FOLD_INSERT_ROWS)
          .map((r) => sql`(0, ${r.topic}, ${Number(r.hour)}, ${Number(r.n)})`);
        await sql`INSERT INTO delayq_journal_due_hours (slot, topic, hour, n) VALUES ${sql.join(values)}
          ON DUPLICATE KEY UPDATE n = n + VALUES(n)`.execute(trx);
      }
    });
  }
  await db.deleteFrom('delayq_journal_due_hours').where('slot', '=', 0).where('n', '=', 0).execute();
}
