import type Database from 'better-sqlite3';
import { countsFromRows, type DueCounts, type DueHistogramQuery } from '../due-histogram.js';

const ALL = `SELECT CAST((run_at - @from) / @bucket AS INTEGER) AS b, count(*) AS n FROM jobs INDEXED BY jobs_delayed_due
  WHERE state = 'delayed' AND run_at >= @from AND run_at < @to GROUP BY b`;
const ONE_TOPIC = `SELECT CAST((run_at - @from) / @bucket AS INTEGER) AS b, count(*) AS n FROM jobs INDEXED BY jobs_delayed_due
  WHERE state = 'delayed' AND run_at >= @from AND run_at < @to AND topic = @topic GROUP BY b`;

/**
 * INDEXED BY: with a topic the planner would otherwise pick the topic index and read the topic's every job.
 * Walks the partial index of delayed jobs by runAt (jobs_delayed_due) over [from, to) only: cost grows
 * with the jobs in the range, not the table. The cast truncates the division (better-sqlite3 binds numbers as REAL; runAt ≥ from, so it floors).
 */
export function sqliteDueHistogram(db: Database.Database, query: DueHistogramQuery): DueCounts {
  const params = {
    from: query.from,
    to: query.to,
    bucket: query.bucketMs,
    ...(query.topic ? { topic: query.topic } : {}),
  };
  const rows = db.prepare(query.topic ? ONE_TOPIC : ALL).all(params) as { b: number; n: number }[];
  return countsFromRows(query, rows);
}
