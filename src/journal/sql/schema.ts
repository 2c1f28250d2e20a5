import type { HistoryEntry, HistoryEvent, JobState, RetryPolicy } from '../../core/job.js';
import type { JournalJob } from '../journal.js';

/** The journal tables as Kysely sees them (one typed query layer for both dialects). */
export interface JournalDatabase {
  delayq_jobs: JobsTable;
  delayq_job_history: HistoryTable;
  delayq_meta: { name: string; value: string };
  delayq_job_outcomes: { job_id: string; outcome: string; updated_at: number };
  delayq_schedules: SchedulesTable;
  delayq_migrations: { version: number; name: string; applied_at: number };
  /** Journal-only jobs per topic and state, one row per writing connection (journal-only-counts.ts). */
  delayq_journal_counts: { topic: string; state: string; slot: number; n: number };
  /** Journal-only delayed jobs per topic and due hour, one row per writing connection (due-histogram.ts). */
  delayq_journal_due_hours: { topic: string; hour: number; slot: number; n: number };
  delayq_dedup_claims: { topic: string; dedup_key: string; job_id: string; claimed_at: number; expires_at: number };
  /** Topics' settings and pauses (topic-state.ts). */
  delayq_topic_state: { kind: string; name: string; value: string };
}

export interface JobsTable {
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
  created_at: number;
  finished_at: number | null;
  loaded: number;
  push_nonce: string | null;
  /** The node that pushed the job: its `push` history entry is this row (created_at, pushed_by), not a history row. */
  pushed_by: string | null;
  updated_at: number;
  /** While reserved: the reservation's token (and reserved_at, deadline_at), what a restore gives back. */
  token: string | null;
  reserved_at: number | null;
  deadline_at: number | null;
  /** The job's beanstalkd number once it has one (store/job-numbers.ts); written only by Journal.claimNumbers. */
  job_number: number | null;
  /** The job's group (docs/flow-control.md "Groups"); fixed at its push. */
  job_group: string | null;
}

/** Schedules as opaque JSON records (src/schedule owns their shape); record NULL is a deletion. */
export interface SchedulesTable {
  name: string;
  created_at: number;
  revision: number;
  cursor_at: number;
  record: string | null;
  updated_at: number;
}

export interface HistoryTable {
  seq: number | undefined;
  job_id: string;
  at: number;
  event: string;
  state: string;
  attempt: number;
  node: string;
  reason: string | null;
}

export type JobRow = JobsTable;
/** A history row as written (seq is assigned by the database). */
export type HistoryRow = Omit<HistoryTable, 'seq'>;

/**
 * pg returns BIGINT as a string unless told otherwise; both drivers go through these two functions,
 * so numbers are normalized in one place.
 */
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));

export function rowToJournalJob(row: JobRow): JournalJob {
  return toJournalJob(row, undefined);
}

/**
 * The rows of one read share one parsed retry policy per distinct text (the jobs of a topic mostly carry the
 * same one): one JSON.parse and one object per policy, not per job. Policies are never changed in place.
 */
export function rowsToJournalJobs(rows: readonly JobRow[]): JournalJob[] {
  const policies = new Map<string, RetryPolicy>();
  return rows.map((row) => toJournalJob(row, policies));
}

function toJournalJob(row: JobRow, policies: Map<string, RetryPolicy> | undefined): JournalJob {
  const job: JournalJob = {
    id: row.id,
    topic: row.topic,
    tag: row.tag,
    bizKey: row.biz_key,
    body: row.body,
    state: row.state as JobState,
    runAt: num(row.run_at),
    priority: num(row.priority),
    ttrMs: num(row.ttr_ms),
    ttlMs: numOrNull(row.ttl_ms),
    retry: policies ? policyOf(row.retry, policies) : (JSON.parse(row.retry) as RetryPolicy),
    attempts: num(row.attempts),
    lastError: row.last_error,
    createdAt: num(row.created_at),
    // The journal does not track readyAt; the inner store has it while it holds the job.
    readyAt: null,
    reservedAt: numOrNull(row.reserved_at),
    finishedAt: numOrNull(row.finished_at),
    deadlineAt: numOrNull(row.deadline_at),
    loaded: num(row.loaded) === 1,
    token: row.token,
    number: numOrNull(row.job_number),
  };
  if (row.job_group !== null && row.job_group !== undefined) job.group = row.job_group;
  return job;
}

function policyOf(text: string, policies: Map<string, RetryPolicy>): RetryPolicy {
  let policy = policies.get(text);
  if (!policy) policies.set(text, (policy = JSON.parse(text) as RetryPolicy));
  return policy;
}

export function journalJobToRow(
  job: JournalJob,
  now: number,
  nonce: string | null,
  pushedBy: string | null = null,
): JobRow {
  return {
    id: job.id,
    topic: job.topic,
    tag: job.tag,
    biz_key: job.bizKey,
    body: job.body,
    state: job.state,
    run_at: job.runAt,
    priority: job.priority,
    ttr_ms: job.ttrMs,
    ttl_ms: job.ttlMs,
    retry: JSON.stringify(job.retry),
    attempts: job.attempts,
    last_error: job.lastError,
    created_at: job.createdAt,
    finished_at: job.finishedAt,
    loaded: job.loaded ? 1 : 0,
    push_nonce: nonce,
    pushed_by: pushedBy,
    updated_at: now,
    token: job.state === 'reserved' ? (job.token ?? null) : null,
    reserved_at: job.reservedAt,
    deadline_at: job.state === 'reserved' ? job.deadlineAt : null,
    job_number: null,
    job_group: job.group ?? null,
  };
}

/** The `push` entry of a job's history, kept in its job row (one row written per push, not two). */
export function pushEntryOf(row: Pick<JobRow, 'created_at' | 'run_at' | 'pushed_by'>): HistoryEntry {
  const at = num(row.created_at);
  return {
    at,
    event: 'push',
    state: num(row.run_at) <= at ? 'ready' : 'delayed',
    attempt: 0,
    node: row.pushed_by ?? 'unknown',
    reason: null,
  };
}

export function rowToHistory(row: Omit<HistoryTable, 'seq' | 'job_id'>): HistoryEntry {
  return {
    at: num(row.at),
    event: row.event as HistoryEvent,
    state: row.state as JobState,
    attempt: num(row.attempt),
    node: row.node,
    reason: row.reason,
  };
}
