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
  job_group: string | null;
}

export function rowToJob(row: JobRow): Job {
  const job: Job = {
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
    retry: retryOf(row.retry),
    attempts: row.attempts,
    lastError: row.last_error,
    createdAt: row.created_at,
    readyAt: row.ready_at,
    reservedAt: row.reserved_at,
    finishedAt: row.finished_at,
    deadlineAt: row.deadline_at,
  };
  if (row.job_group !== null) job.group = row.job_group;
  return job;
}

/**
 * The columns a hot statement returns as a plain array (better-sqlite3's raw mode), in this order: building
 * an object per row, keyed by column name, costs more than the statement's own work.
 */
export const JOB_VALUES = `id, topic, tag, biz_key, body, state, run_at, priority, ttr_ms, ttl_ms, retry, attempts,
  last_error, token, deadline_at, expire_at, created_at, ready_at, reserved_at, finished_at, job_group`;

/** A row returned as JOB_VALUES. */
export type JobValues = [
  id: string,
  topic: string,
  tag: string | null,
  bizKey: string | null,
  body: string,
  state: string,
  runAt: number,
  priority: number,
  ttrMs: number,
  ttlMs: number | null,
  retry: string,
  attempts: number,
  lastError: string | null,
  token: string | null,
  deadlineAt: number | null,
  expireAt: number | null,
  createdAt: number,
  readyAt: number | null,
  reservedAt: number | null,
  finishedAt: number | null,
  group: string | null,
];

export function valuesToJob(v: JobValues): Job {
  const job: Job = {
    id: v[0],
    topic: v[1],
    tag: v[2],
    bizKey: v[3],
    body: v[4],
    state: v[5] as JobState,
    runAt: v[6],
    priority: v[7],
    ttrMs: v[8],
    ttlMs: v[9],
    retry: retryOf(v[10]),
    attempts: v[11],
    lastError: v[12],
    createdAt: v[16],
    readyAt: v[17],
    reservedAt: v[18],
    finishedAt: v[19],
    deadlineAt: v[14],
  };
  if (v[20] !== null) job.group = v[20];
  return job;
}

/** The token of a row returned as JOB_VALUES. */
export const tokenOf = (v: JobValues): string | null => v[13];

const RETRY_CACHE_MAX = 64;
const retryCache = new Map<string, RetryPolicy>();

/**
 * A job's retry policy from its JSON text. Most jobs carry the same few policies, so parsed ones are kept
 * (frozen, as jobs share them) and the cache is emptied when it fills.
 */
export function retryOf(text: string): RetryPolicy {
  let policy = retryCache.get(text);
  if (policy) return policy;
  policy = deepFreeze(JSON.parse(text) as RetryPolicy);
  if (retryCache.size >= RETRY_CACHE_MAX) retryCache.clear();
  retryCache.set(text, policy);
  return policy;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
