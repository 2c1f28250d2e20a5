import type { Job, JobState, RetryPolicy } from '../../core/job.js';

/** A `jobs` row as better-sqlite3 returns it. */
export interface JobRow {
  id: string;
  topic: string;
  tag: string | null;
  biz_key: string | null;
  body: string;
  state: string;
  run_at: number;
  priority: number;
  ttr_ms: number;
  ttl_ms: number | null;
  retry: string;
  attempts: number;
  last_error: string | null;
  token: string | null;
  deadline_at: number | null;
  expire_at: number | null;
  created_at: number;
  ready_at: number | null;
  reserved_at: number | null;
  finished_at: number | null;
}

export function rowToJob(row: JobRow): Job {
  return {
    id: row.id,
    topic: row.topic,
    tag: row.tag,
    bizKey: row.biz_key,
    body: row.body,
    state: row.state as JobState,
    runAt: row.run_at,
    priority: row.priority,
    ttrMs: row.ttr_ms,
    ttlMs: row.ttl_ms,
    retry: JSON.parse(row.retry) as RetryPolicy,
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    readyAt: row.ready_at,
    reservedAt: row.reserved_at,
    finishedAt: row.finished_at,
    deadlineAt: row.deadline_at,
  };
}
