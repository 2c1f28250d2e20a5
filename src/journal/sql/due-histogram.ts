import { sql, type Kysely } from 'kysely';
import {
  bucketSpans,
  countsFromRows,
  type BucketSpan,
  type DueCounts,
  type DueHistogramQuery,
} from '../../store/due-histogram.js';
import { foldCounterSlots } from './counter-slots.js';
import type { JournalDatabase } from './schema.js';

/** The width of the delayq_journal_due_hours counters (PostgreSQL migration 012, MySQL 013). */
export const DUE_HOUR_MS = 3_600_000;

/** Counter rows beyond one per topic and hour in range before a read folds the writers' slots into slot 0. */
const FOLD_AFTER_EXTRA_ROWS = 1024;

/**
 * Journal-only delayed jobs (beyond the horizon, loaded = 0) per due-time bucket: each bucket's whole hours
 * summed from delayq_journal_due_hours (triggers keep them as rows change), the pieces of an hour its edges cut
 * counted in one GROUP BY over the loader's index (delayq_jobs_to_load: loaded = 0, finished_at IS NULL, by
 * run_at). It reads the counter rows (one per topic, hour with journal-only jobs and writer slot; no index by
 * hour, so a read without a topic reads them all) and the jobs in the cut hours, never the journal's backlog.
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
    if (hour < w.firstUnit) hi = mid - 1;
    else if (hour >= w.endUnit) lo = mid + 1;
    else return w.bucket;
  }
  return undefined;
}

type WholeHours = Pick<BucketSpan, 'bucket' | 'firstUnit' | 'endUnit'>;

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
  for (const { bucket, lo, hi, firstUnit, endUnit } of bucketSpans(query, DUE_HOUR_MS)) {
    if (firstUnit >= endUnit) {
      piece(lo, hi);
      continue;
    }
    piece(lo, firstUnit * DUE_HOUR_MS);
    whole.push({ bucket, firstUnit, endUnit });
    piece(endUnit * DUE_HOUR_MS, hi);
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
    .where('hour', '>=', whole[0]!.firstUnit)
    .where('hour', '<', whole[whole.length - 1]!.endUnit);
  if (query.topic) select = select.where('topic', '=', query.topic);
  const rows = await select.groupBy('hour').execute();
  const extraSlots = rows.reduce((sum, r) => sum + Number(r.slots) - Number(r.topics), 0);
  if (extraSlots > FOLD_AFTER_EXTRA_ROWS) await foldCounterSlots(db, dialect, 'delayq_journal_due_hours');
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
