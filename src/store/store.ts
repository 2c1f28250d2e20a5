import type { Clock, EpochMs } from '../core/clock.js';
import type { DueCounts, DueHistogramQuery } from './due-histogram.js';
import type { HistoryEntry, Job, JobState, NewJob, Reservation, TopicStats } from '../core/job.js';
import type { JobNumbers } from './job-numbers.js';
import type { TopicPauses } from './topic-pauses.js';
import type { JobOutcome, NewOutcome, Retention } from '../core/job-outcome.js';
import type { BulkRequest, BulkResult } from './bulk.js';
import type { DueListQuery, DuePage, ReservedListQuery, ReservedPage } from './listings.js';

/**
 * The storage boundary. Every method is one state transition (or one read), atomic inside the store:
 * one SQLite transaction, one Lua script. Rules (docs/architecture.md):
 *  - policy stays in core: the store never computes backoff or counts attempts against a limit;
 *  - time is an argument (`now`), so the contract suite runs on a fake clock;
 *  - reserved-state changes are fenced by the reservation token;
 *  - expected outcomes are values (Outcome); broken infrastructure throws DelayqError E_STORE_UNAVAILABLE.
 * The lifecycle these methods implement is drawn in docs/lifecycle.md.
 */
export interface Store {
  readonly kind: string;
  readonly capabilities: StoreCapabilities;
  /**
   * A shared store's authoritative clock (Redis TIME), which every process on it must use; the service
   * takes it unless told otherwise. Absent: the local steady clock.
   */
  readonly clock?: Clock;
  /** Paused topics (topic-pauses.ts). */
  readonly pauses: TopicPauses;
  /** Integer job numbers for the beanstalkd front end (job-numbers.ts). */
  readonly numbers: JobNumbers;

  /** Connect, migrate or load scripts. Safe to call twice. */
  open(): Promise<void>;
  /** Resolves after in-flight calls settle; the store is unusable afterwards. */
  close(): Promise<void>;

  // producers
  /** Stores each job (delayed, or ready when runAt ≤ now) unless its id exists: then `created: false`. */
  push(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]>;
  /** delayed | ready | reserved → cancelled; `dispatched` says whether it was reserved (out) at that moment. */
  cancel(id: string, now: EpochMs, reason?: string): Promise<Outcome<CancelledJob>>;
  /** delayed | ready → delayed at `runAt` (ready at once when runAt ≤ now). */
  reschedule(id: string, runAt: EpochMs, now: EpochMs): Promise<Outcome<Job>>;

  // consumers
  /**
   * ready → reserved for up to `count` jobs of the given topics, in the ready order (compareReadyOrder, ready-order.ts) across
   * topics. Each gets a fresh token, attempts + 1 and deadlineAt = now + (ttrMs ?? job.ttrMs).
   * A ready job whose ttl ran out (runAt + ttlMs ≤ now) is never handed out: reserve expires it.
   * A store may also take due delayed jobs (runAt ≤ now) that promoteDue has not moved yet, in the same
   * order merged with the ready ones, recording each as promoted and reserved at `now` (RedisStore does,
   * see PromoteOptions).
   */
  reserve(topics: readonly string[], count: number, now: EpochMs, options?: ReserveOptions): Promise<Reservation[]>;
  /** Extends a reservation: deadlineAt = now + (ttrMs ?? job.ttrMs). */
  touch(id: string, token: string, now: EpochMs, ttrMs?: number): Promise<Outcome<Job>>;
  /**
   * reserved → finished. A repeat with the token that finished the job answers ok again with the job
   * as it is (`repeated: true`), so a client may retry a finish whose answer it lost.
   */
  finish(id: string, token: string, now: EpochMs): Promise<Outcome<Job>>;
  /** reserved → delayed at `runAt` (ready when runAt ≤ now), remembering `error`. The caller decided. */
  retry(id: string, token: string, runAt: EpochMs, now: EpochMs, error: string | null): Promise<Outcome<Job>>;
  /** reserved → dead, remembering `error`. The caller decided. */
  bury(id: string, token: string, now: EpochMs, error: string | null): Promise<Outcome<Job>>;
  /**
   * reserved → ready, giving back the attempt (the consumer gave it back, or never got it: client gone).
   * With `runAt`: ready at runAt, or delayed until it when runAt > now. Without: ready at its own runAt.
   */
  release(id: string, token: string, now: EpochMs, runAt?: EpochMs): Promise<Outcome<Job>>;
  /** dead → ready with attempts reset; by ids, or the oldest `limit` dead jobs of a topic. */
  redrive(target: RedriveTarget, now: EpochMs): Promise<number>;

  // the scheduler
  /** delayed → ready for jobs with runAt ≤ now, earliest first, at most `limit`. */
  promoteDue(now: EpochMs, limit: number, options?: PromoteOptions): Promise<PromoteResult>;
  /** Reservations whose TTR lapsed (deadlineAt ≤ now), earliest first. */
  listLapsed(now: EpochMs, limit: number): Promise<LapsedReservation[]>;
  /** ready → expired for jobs whose ttl ran out (runAt + ttlMs ≤ now). */
  expireDue(now: EpochMs, limit: number): Promise<number>;
  /** The earliest time at which promoteDue, listLapsed or expireDue would find work, if any. */
  nextWakeAt(): Promise<EpochMs | null>;
  /** Deletes terminal jobs (and their history) that ended before `before`. */
  purge(before: EpochMs, limit: number): Promise<number>;

  // reads
  get(id: string): Promise<Job | null>;
  history(id: string): Promise<HistoryEntry[]>;
  list(query: JobQuery): Promise<JobPage>;
  stats(): Promise<TopicStats[]>;
  /** Delayed jobs per due-time bucket over [from, to) (store/due-histogram.ts). */
  dueHistogram(query: DueHistogramQuery): Promise<DueCounts>;

  // the job API (issue 23): outcomes, retention, bulk by selector, listings; docs/job-api.md
  /**
   * Keeps what the consumer holding `token` reports (a finish's result, a fail's error) beside the job,
   * replacing an earlier outcome; false (nothing kept) unless the job is reserved with that token, or
   * finished with it. The caller then finishes, retries or buries: a result shows only once the job
   * finished with the token that reported it, so a stale consumer's report never shows.
   */
  recordOutcome(id: string, token: string, outcome: NewOutcome, now: EpochMs): Promise<boolean>;
  /** The outcome kept for a job (result only when it counts, see recordOutcome); null: none, or no job. */
  outcomeOf(id: string): Promise<JobOutcome | null>;
  /** How long these jobs are kept once finished or dead (Retention); applied by purgeRetained. */
  setRetention(ids: readonly string[], retention: Retention, now: EpochMs): Promise<void>;
  /** Deletes ended jobs whose own retention (setRetention) ran out by `now`, at most `limit`; their ids. */
  purgeRetained(now: EpochMs, limit: number): Promise<string[]>;
  /** Deletes terminal jobs by id (record, history, outcome); ids not terminal are left. Returns how many. */
  deleteEnded(ids: readonly string[]): Promise<number>;
  /** One bounded slice of a bulk operation by selector (store/bulk.ts). */
  bulk(request: BulkRequest, now: EpochMs): Promise<BulkResult>;
  /** Delayed jobs with runAt in [from, to), next to fire first (store/listings.ts). */
  listDue(query: DueListQuery): Promise<DuePage>;
  /** Reserved jobs, earliest deadline first, with the node holding each (store/listings.ts). */
  listReserved(query: ReservedListQuery): Promise<ReservedPage>;
}

export interface StoreCapabilities {
  /** Several delayq processes may share this store at once (and see each other's wake-ups via `watch`). */
  readonly shared: boolean;
  /** The store survives a process crash without an external journal. */
  readonly durable: boolean;
}

/** Cross-process wake-ups, for shared stores: another process made jobs ready or pushed an earlier due time. */
export interface StoreWatcher {
  onReady(topics: readonly string[]): void;
  onDue(at: EpochMs): void;
}

/** A store that several processes share implements this so each process's timer and waiters hear the others. */
export interface WatchableStore extends Store {
  watch(watcher: StoreWatcher): void;
}

export function isWatchable(store: Store): store is WatchableStore {
  return typeof (store as Partial<WatchableStore>).watch === 'function';
}

export type Outcome<T> =
  | {
      ok: true;
      value: T;
      /** A repeat of a finish already done with the same token: nothing changed. */ repeated?: true;
    }
  | { ok: false; reason: OutcomeFailure; state?: JobState };

export type OutcomeFailure = 'not_found' | 'wrong_state' | 'token_mismatch';

/** What cancel answers: the cancelled job, and whether it was out (reserved by a consumer or a push sink). */
export interface CancelledJob {
  job: Job;
  /** true: the job was reserved when cancelled, so its current attempt may have run; job.attempts counts them. */
  dispatched: boolean;
}

export interface PushResult {
  /** false when a job with this id already existed: `job` is that job, unchanged. */
  created: boolean;
  job: Job;
}

export interface PromoteOptions {
  /**
   * The scheduler's hint: a store whose reserve takes due delayed jobs itself may leave the due jobs of a
   * topic its consumers are draining where they are, for them to reserve in one transition instead of
   * two (promote, then reserve). It still names such a topic in `topics`, and promotes its jobs once
   * the consumers stop or the jobs have waited a bounded time. Stores without the shortcut ignore it.
   */
  leaveToConsumers?: boolean;
}

export interface PromoteResult {
  count: number;
  /** Topics that got ready jobs (or have due jobs left to their consumers), so waiting consumers can be woken. */
  topics: string[];
  /**
   * Optional: what the store saw right after promoting, when it could tell in the same call. The
   * scheduler then skips the calls that would find nothing (listLapsed, expireDue, nextWakeAt).
   */
  heads?: WakeHeads;
}

/** The earliest due runAt, TTR deadline and ttl expiry in the store (null: none). */
export interface WakeHeads {
  /** With due jobs left to consumers (PromoteOptions), when promoteDue must look at them again, if earlier. */
  dueAt: EpochMs | null;
  deadlineAt: EpochMs | null;
  expireAt: EpochMs | null;
}

export interface ReserveOptions {
  /** Overrides each job's own TTR for this reservation. */
  ttrMs?: number | undefined;
}

export interface LapsedReservation {
  id: string;
  topic: string;
  token: string;
  attempts: number;
  deadlineAt: EpochMs;
  retry: Job['retry'];
}

export type RedriveTarget = { ids: readonly string[] } | { topic: string; limit: number };

export interface JobQuery {
  topic?: string | undefined;
  state?: JobState | undefined;
  bizKey?: string | undefined;
  tag?: string | undefined;
  /** Page size. */
  limit: number;
  /** Opaque cursor from the previous page's `next`. */
  cursor?: string | undefined;
}

export interface JobPage {
  jobs: Job[];
  /** Cursor for the next page, or null on the last. */
  next: string | null;
}

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const repeatedOk = <T>(value: T): Outcome<T> => ({ ok: true, value, repeated: true });
export const notFound = <T>(): Outcome<T> => ({ ok: false, reason: 'not_found' });
export const wrongState = <T>(state: JobState): Outcome<T> => ({ ok: false, reason: 'wrong_state', state });
export const tokenMismatch = <T>(state: JobState): Outcome<T> => ({ ok: false, reason: 'token_mismatch', state });
