import type Database from 'better-sqlite3';
import { bucketCount, type DueCounts, type DueHistogramQuery } from '../due-histogram.js';

const ALL = `SELECT count(*) FROM jobs INDEXED BY jobs_delayed_due
  WHERE state = 'delayed' AND run_at >= ? AND run_at < ?`;
const ONE_TOPIC = `SELECT count(*) FROM jobs INDEXED BY jobs_delayed_due
  WHERE state = 'delayed' AND run_at >= ? AND run_at < ? AND topic = ?`;

/**
 * One count per bucket over the partial index of delayed jobs by (runAt, topic), jobs_delayed_due: each count
 * walks the index entries of its range and reads no row (the topic is in the index), so the cost grows with
 * the delayed jobs in [from, to), not the table. INDEXED BY: with a topic the planner would otherwise pick
 * the topic index and read the topic's every job.
 */
export function sqliteDueHistogram(db: Database.Database, query: DueHistogramQuery): DueCounts {
  const count = db.prepare(query.topic ? ONE_TOPIC : ALL).pluck();
  const counts = new Array<number>(bucketCount(query));
  for (let i = 0; i < counts.length; i++) {
    const lo = query.from + i * query.bucketMs;
    const hi = Math.min(lo + query.bucketMs, query.to);
    counts[i] = Number(query.topic ? count.get(lo, hi, query.topic) : count.get(lo, hi));
  }
  return counts;
}
