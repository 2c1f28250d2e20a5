import type Database from 'better-sqlite3';
import type { EpochMs } from '../../core/clock.js';
import { emptyCounts, type JobState, type TopicStats } from '../../core/job.js';
import type { JobPage, JobQuery, LapsedReservation, WakeTimes } from '../store.js';
import { retryOf, rowToJob, type JobRow } from './job-row.js';
import { listSql, type SQL } from './statements.js';

/** The store's prepared statements, one per entry of SQL. */
export type Statements = { [K in keyof typeof SQL]: Database.Statement };

/** When each kind of the timer's work is next due: promotion, a TTR deadline, a ttl expiry. */
export function wakeTimesOf(stmt: Statements): WakeTimes {
  const at = (s: Database.Statement): EpochMs | null => (s.get() as { at: number | null }).at;
  return { promoteAt: at(stmt.nextDelayed), deadlineAt: at(stmt.nextDeadline), expireAt: at(stmt.nextExpiry) };
}

/** Reservations whose TTR deadline has passed, earliest first. */
export function lapsedReservations(lapsed: Database.Statement, now: EpochMs, limit: number): LapsedReservation[] {
  const rows = lapsed.all(now, limit) as Array<
    Pick<JobRow, 'id' | 'topic' | 'token' | 'attempts' | 'deadline_at' | 'retry'>
  >;
  return rows.map((r) => ({
    id: r.id,
    topic: r.topic,
    token: r.token!,
    attempts: r.attempts,
    deadlineAt: r.deadline_at!,
    retry: retryOf(r.retry),
  }));
}

/** The SQLite store's paged list: one statement per combination of filters, prepared once and cached. */
export function listJobs(db: Database.Database, cache: Map<string, Database.Statement>, query: JobQuery): JobPage {
  const params: Record<string, unknown> = { limit: query.limit + 1 };
  const present: string[] = [];
  for (const name of ['topic', 'state', 'bizKey', 'tag', 'cursor'] as const) {
    if (query[name] !== undefined) {
      present.push(name);
      params[name] = query[name];
    }
  }
  const key = present.join(',');
  let statement = cache.get(key);
  if (!statement) {
    statement = db.prepare(listSql(present));
    cache.set(key, statement);
  }
  const rows = statement.all(params) as JobRow[];
  const more = rows.length > query.limit;
  const jobs = rows.slice(0, query.limit).map(rowToJob);
  return { jobs, next: more ? jobs[jobs.length - 1]!.id : null };
}

/**
 * Counts per topic and state (the topic_counts table, kept by triggers), with each topic's earliest due time
 * (one seek of jobs_delayed_topic per topic with delayed jobs), sorted by topic: O(topics × log jobs).
 */
export function topicStats(counts: Database.Statement, nextDue: Database.Statement): TopicStats[] {
  const byTopic = new Map<string, TopicStats>();
  const entry = (topic: string): TopicStats => {
    let stats = byTopic.get(topic);
    if (!stats) byTopic.set(topic, (stats = { topic, counts: emptyCounts(), nextDueAt: null }));
    return stats;
  };
  for (const r of counts.all() as { topic: string; state: JobState; n: number }[]) entry(r.topic).counts[r.state] = r.n;
  for (const stats of byTopic.values())
    if (stats.counts.delayed > 0) stats.nextDueAt = (nextDue.get(stats.topic) as { at: number | null }).at;
  return [...byTopic.values()].sort((a, b) => a.topic.localeCompare(b.topic));
}
