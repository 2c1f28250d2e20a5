import type Database from 'better-sqlite3';
import { bucketSpans, type DueCounts, type DueHistogramQuery } from '../due-histogram.js';

/** The width of the due_minutes counters (migration 051). */
export const DUE_MINUTE_MS = 60_000;

// Jobs in a range shorter than a minute, from the partial index of delayed jobs by (runAt, topic): the topic is in
// the index, so no row is read. INDEXED BY: with a topic the planner would otherwise read the topic's every job.
const JOBS_ALL = `SELECT count(*) FROM jobs INDEXED BY jobs_delayed_due
  WHERE state = 'delayed' AND run_at >= ? AND run_at < ?`;
const JOBS_ONE_TOPIC = `SELECT count(*) FROM jobs INDEXED BY jobs_delayed_due
  WHERE state = 'delayed' AND run_at >= ? AND run_at < ? AND topic = ?`;
// Whole minutes, from the counters: one seek per topic with delayed jobs, then its minutes in the range.
const MINUTES_ALL = `SELECT coalesce(sum(n), 0) FROM due_minutes
  WHERE topic IN (SELECT topic FROM topic_counts WHERE state = 'delayed' AND n > 0) AND minute >= ? AND minute < ?`;
const MINUTES_ONE_TOPIC = `SELECT coalesce(sum(n), 0) FROM due_minutes WHERE topic = ? AND minute >= ? AND minute < ?`;

/**
 * One count per bucket: the bucket's whole minutes summed from due_minutes, the pieces of a minute at its edges
 * (when an edge is not on a whole minute) counted from the index. The cost grows with the minutes in [from, to)
 * and the jobs in the edges' minutes, not with the delayed jobs: a 30-day histogram over 10M jobs reads ≈ 43k
 * counters per topic where it walked 10M index entries.
 */
export function sqliteDueHistogram(db: Database.Database, query: DueHistogramQuery): DueCounts {
  const topic = query.topic;
  const jobs = db.prepare(topic ? JOBS_ONE_TOPIC : JOBS_ALL).pluck();
  const minutes = db.prepare(topic ? MINUTES_ONE_TOPIC : MINUTES_ALL).pluck();
  const countJobs = (lo: number, hi: number) =>
    lo < hi ? Number(topic ? jobs.get(lo, hi, topic) : jobs.get(lo, hi)) : 0;
  return bucketSpans(query, DUE_MINUTE_MS).map(({ lo, hi, firstUnit, endUnit }) => {
    if (firstUnit >= endUnit) return countJobs(lo, hi);
    const whole = Number(topic ? minutes.get(topic, firstUnit, endUnit) : minutes.get(firstUnit, endUnit));
    return countJobs(lo, firstUnit * DUE_MINUTE_MS) + whole + countJobs(endUnit * DUE_MINUTE_MS, hi);
  });
}
