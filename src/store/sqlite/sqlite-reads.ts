import type Database from 'better-sqlite3';
import { emptyCounts, type JobState, type TopicStats } from '../../core/job.js';
import type { JobPage, JobQuery } from '../store.js';
import { rowToJob, type JobRow } from './job-row.js';
import { listSql } from './statements.js';

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

/** Counts per topic and state, with each topic's earliest due time, sorted by topic. */
export function topicStats(counts: Database.Statement, nextDue: Database.Statement): TopicStats[] {
  const byTopic = new Map<string, TopicStats>();
  const entry = (topic: string): TopicStats => {
    let stats = byTopic.get(topic);
    if (!stats) byTopic.set(topic, (stats = { topic, counts: emptyCounts(), nextDueAt: null }));
    return stats;
  };
  for (const r of counts.all() as { topic: string; state: JobState; n: number }[]) entry(r.topic).counts[r.state] = r.n;
  for (const r of nextDue.all() as { topic: string; at: number }[]) entry(r.topic).nextDueAt = r.at;
  return [...byTopic.values()].sort((a, b) => a.topic.localeCompare(b.topic));
}
