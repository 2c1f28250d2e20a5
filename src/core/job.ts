import type { EpochMs } from './clock.js';
import type { ExistingJobRule } from './push-on-exists.js';
import type { DedupRule } from './push-dedup.js';

/**
 * A job's life, written down in docs/lifecycle.md:
 *   delayed → ready → reserved → finished
 *   reserved → (fail | TTR lapse) → delayed (backoff) or dead
 *   delayed | ready | reserved → cancelled;  ready → expired (ttl);  dead → (redrive) → ready
 */
export const JOB_STATES = ['delayed', 'ready', 'reserved', 'finished', 'dead', 'cancelled', 'expired'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** States a job never leaves except by purge (or, for `dead`, by redrive). */
export const TERMINAL_STATES: readonly JobState[] = ['finished', 'dead', 'cancelled', 'expired'];

export function isTerminal(state: JobState): boolean {
  return TERMINAL_STATES.includes(state);
}

/** What moved a job; recorded with every history entry. */
export const HISTORY_EVENTS = [
  'push',
  'promote',
  'reserve',
  'release',
  'finish',
  'retry',
  'bury',
  'cancel',
  'expire',
  'redrive',
  'reschedule',
  'restore',
  'replace',
  'extend',
] as const;
export type HistoryEvent = (typeof HISTORY_EVENTS)[number];

export type Backoff =
  /** The same wait before every retry. */
  | { type: 'fixed'; delayMs: number }
  /** delayMs · factor^(retry−1), capped at maxDelayMs. */
  | { type: 'exponential'; delayMs: number; factor: number; maxDelayMs: number }
  /** An explicit schedule (`4m,10m,10m,1h`); retries past its end reuse the last step. */
  | { type: 'list'; delaysMs: number[] };

export interface RetryPolicy {
  /** Deliveries allowed in all, the first included; when the last one fails the job is buried. */
  maxAttempts: number;
  backoff: Backoff;
}

/** A job ready to be stored: validated, with defaults applied and `runAt` stamped by the server. */
export interface NewJob {
  id: string;
  topic: string;
  tag: string | null;
  bizKey: string | null;
  /** The body, already serialized to JSON text (validated and size-checked once, at the edge). */
  body: string;
  runAt: EpochMs;
  priority: number;
  ttrMs: number;
  ttlMs: number | null;
  retry: RetryPolicy;
  /** The job's group (docs/flow-control.md "Groups"); absent: none. */
  group?: string;
  /** What to do when a waiting job of this topic holds the id (push-on-exists.ts); absent: keep it. */
  onExists?: ExistingJobRule;
  /** The push's dedup window (push-dedup.ts); absent: none. */
  dedup?: DedupRule;
}

/** A stored job as the API shows it. */
export interface Job {
  id: string;
  topic: string;
  tag: string | null;
  bizKey: string | null;
  /** JSON text; the service parses it for callers that want a value. */
  body: string;
  state: JobState;
  runAt: EpochMs;
  priority: number;
  ttrMs: number;
  ttlMs: number | null;
  retry: RetryPolicy;
  /** Deliveries so far (a reservation counts as one; a release on disconnect gives it back). */
  attempts: number;
  lastError: string | null;
  createdAt: EpochMs;
  readyAt: EpochMs | null;
  reservedAt: EpochMs | null;
  /** When the job reached a terminal state (finished, dead, cancelled or expired). */
  finishedAt: EpochMs | null;
  /** While reserved: when the TTR lapses unless touched. */
  deadlineAt: EpochMs | null;
  /** The job's group, by which a topic's groupConcurrency counts (docs/flow-control.md "Groups"); absent: none. */
  group?: string;
}

/** One entry of a job's history (the seeds' job_log): every transition, with who made it. */
export interface HistoryEntry {
  at: EpochMs;
  event: HistoryEvent;
  state: JobState;
  /** Attempt number at the time of the transition. */
  attempt: number;
  /** The delayq node (process) that made the transition. */
  node: string;
  reason: string | null;
}

/** A job handed to a consumer, fenced by `token`: touch/finish/fail must present it. */
export interface Reservation {
  job: Job;
  token: string;
  deadlineAt: EpochMs;
}

export interface TopicStats {
  topic: string;
  counts: Record<JobState, number>;
  /** Earliest runAt among the topic's delayed jobs. */
  nextDueAt: EpochMs | null;
}

/** A topic's stats as the service reports them: the store's counts, and whether the topic is paused. */
export interface TopicStatsWithPause extends TopicStats {
  paused: boolean;
  /** When a timed pause ends by itself; null when not paused or paused until resumed. */
  pausedUntil: EpochMs | null;
}

/** The job a push creates: delayed, or ready at once when already due (every store answers this shape). */
export function pushedJob(job: NewJob, now: EpochMs): Job {
  const ready = job.runAt <= now;
  // Fields listed, not spread: V8 (Node 20) turns `{ ...job, more }` into a slow dictionary-mode copy.
  const pushed: Job = {
    id: job.id,
    topic: job.topic,
    tag: job.tag,
    bizKey: job.bizKey,
    body: job.body,
    state: ready ? 'ready' : 'delayed',
    runAt: job.runAt,
    priority: job.priority,
    ttrMs: job.ttrMs,
    ttlMs: job.ttlMs,
    retry: job.retry,
    attempts: 0,
    lastError: null,
    createdAt: now,
    readyAt: ready ? now : null,
    reservedAt: null,
    finishedAt: null,
    deadlineAt: null,
  };
  if (job.group !== undefined) pushed.group = job.group;
  return pushed;
}

/** A field-by-field copy (see pushedJob for why not `{ ...job }` when fields are added afterwards). */
export function copyJob(job: Job): Job {
  const copy: Job = {
    id: job.id,
    topic: job.topic,
    tag: job.tag,
    bizKey: job.bizKey,
    body: job.body,
    state: job.state,
    runAt: job.runAt,
    priority: job.priority,
    ttrMs: job.ttrMs,
    ttlMs: job.ttlMs,
    retry: job.retry,
    attempts: job.attempts,
    lastError: job.lastError,
    createdAt: job.createdAt,
    readyAt: job.readyAt,
    reservedAt: job.reservedAt,
    finishedAt: job.finishedAt,
    deadlineAt: job.deadlineAt,
  };
  if (job.group !== undefined) copy.group = job.group;
  return copy;
}

export function emptyCounts(): Record<JobState, number> {
  return { delayed: 0, ready: 0, reserved: 0, finished: 0, dead: 0, cancelled: 0, expired: 0 };
}
