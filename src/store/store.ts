import type { Clock, EpochMs } from '../core/clock.js';
import type { RateLimit } from '../core/topic-settings.js';
import type { DueCounts, DueHistogramQuery } from './due-histogram.js';
import type { HistoryEntry, Job, JobState, NewJob, Reservation, TopicStats } from '../core/job.js';
import type { JobEventLog } from './job-event-log.js';
import type { JobSeries } from './job-series.js';
import type { JobNumbers } from './job-numbers.js';
import type { PeekState } from './peek-order.js';
import type { StoreNoticeListener } from './store-notices.js';
import type { TopicPauses } from './topic-pauses.js';
import type { TopicSettingsStore } from './topic-settings.js';
import type { DispatchRates } from './dispatch-rates.js';
import type { ConsumerDirectory } from './consumer-directory.js';
import type { JobOutcome, NewOutcome, Retention } from '../core/job-outcome.js';
import type { BulkRequest, BulkResult } from './bulk.js';
import type { JobRef } from './job-ref.js';
import type { PushChange } from '../core/push-on-exists.js';
export type { JobRef } from './job-ref.js';
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
  /** Topics' flow-control settings (topic-settings.ts). */
  readonly topicSettings: TopicSettingsStore;
  /** The token buckets of topics' dispatch rate limits (dispatch-rates.ts). */
  readonly dispatchRates: DispatchRates;
  /** Integer job numbers for the beanstalkd front end (job-numbers.ts). */
  readonly numbers: JobNumbers;
  /** Job events for followers (job-event-log.ts): one log every process on a shared store reads. */
  readonly jobEvents: JobEventLog;
  /** Store-wide figures over time (job-series.ts): every process on a shared store adds to the same slots. */
  readonly series: JobSeries;
  /** Who consumes which topics, published by every process on the store (consumer-directory.ts). */
  readonly consumers: ConsumerDirectory;

  /** Connect, migrate or load scripts. Safe to call twice. */
  open(): Promise<void>;
  /** Resolves after in-flight calls settle; the store is unusable afterwards. */
  close(): Promise<void>;

  // producers
  /**
   * Stores each job (delayed, or ready when runAt ≤ now) unless its id exists: then `created: false`, and a
   * job with an `onExists` rule replaces or extends the job holding the id when that job is of its topic and
   * delayed or ready (`change`, history event replace | extend), in the same atomic step.
   * A job with a `dedup` rule whose key a live claim of its topic holds makes no job: `duplicate: true` and the
   * claimed job as it is; else, once created, it claims the key for its window (core/push-dedup.ts).
   */
  pushMany(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]>;
  /** delayed | ready | reserved → cancelled; `dispatched` says whether it was reserved (out) at that moment. */
  cancel(id: string, now: EpochMs, params?: CancelParams): Promise<Outcome<CancelledJob>>;
  /** delayed | ready → delayed at `runAt` (ready at once when runAt ≤ now). */
  reschedule(id: string, runAt: EpochMs, now: EpochMs): Promise<Outcome<Job>>;
  /**
   * delayed → ready at once (runAt = now), a job waiting for its due time or for a retry alike; recorded as
   * `promote` with the reason RUN_NOW_REASON. Any other state is refused (wrong_state).
   */
  runNow(id: string, now: EpochMs): Promise<Outcome<Job>>;

  // consumers
  /**
   * ready → reserved for up to `count` jobs of the given topics, in the ready order (compareReadyOrder, ready-order.ts) across
   * topics. Each gets a fresh token, attempts + 1 and deadlineAt = now + (ttrMs ?? job.ttrMs).
   * A ready job whose ttl ran out (runAt + ttlMs ≤ now) is never handed out: reserve expires it, and answers
   * it in `expired` (as expireDue does), for its event.
   * A store may also take due delayed jobs (runAt ≤ now) that promoteDue has not moved yet, in the same
   * order merged with the ready ones, recording each as promoted and reserved at `now`
   * (capabilities.reserveTakesDue).
   */
  reserve(topics: readonly string[], count: number, now: EpochMs, options?: ReserveOptions): Promise<ReserveResult>;
  /** Extends a reservation: deadlineAt = now + (ttrMs ?? job.ttrMs). */
  touch(id: string, token: string, now: EpochMs, ttrMs?: number): Promise<Outcome<Job>>;
  /**
   * reserved → finished. A repeat with the token that finished the job answers ok again with the job
   * as it is (`repeated: true`), so a client may retry a finish whose answer it lost.
   */
  finish(id: string, token: string, now: EpochMs): Promise<Outcome<Job>>;
  /**
   * finish for many reservations in one store call (a batch acknowledgement): each item has its own outcome,
   * in order, exactly as its own finish would answer. SQLite settles them in one transaction.
   */
  finishMany(items: readonly FinishItem[], now: EpochMs): Promise<Outcome<Job>[]>;
  /** reserved → delayed at `params.runAt` (ready when runAt ≤ now), remembering `params.error`. The caller decided. */
  retry(id: string, token: string, now: EpochMs, params: RetryParams): Promise<Outcome<Job>>;
  /** reserved → dead, remembering `params.error` (and taking `params.priority`, if given). The caller decided. */
  bury(id: string, token: string, now: EpochMs, params: BuryParams): Promise<Outcome<Job>>;
  /** reserved → ready, giving back the attempt (the consumer gave it back, or never got it: client gone). */
  release(id: string, token: string, now: EpochMs, params?: ReleaseParams): Promise<Outcome<Job>>;
  /**
   * ready | delayed | dead → reserved, one job by id (the beanstalkd protocol's reserve-job), whatever its
   * topic's pause: a delayed job is promoted and a dead one redriven (attempts reset) at the same instant,
   * then attempts + 1, a fresh token, deadlineAt = now + (ttrMs ?? job.ttrMs). A job whose ttl ran out is
   * refused (wrong_state), as reserve never hands one out.
   */
  reserveJob(id: string, now: EpochMs, options?: ReserveOptions): Promise<Outcome<Reservation>>;
  /**
   * delayed | ready | reserved → reserved under `kept.token` until `kept.deadlineAt`, with its attempts and
   * runAt: a reservation the store lost (a wipe, a failover) put back as a journal kept it
   * (journal/recovery/restore.ts), so its holder can still touch, finish or fail it and nobody else gets the
   * job before that deadline. A job already reserved under that token is answered as it is; an ended job is
   * refused (wrong_state). A job reserved under another token is taken from that reservation only when its
   * token is `replacing` (a reservation just made and not handed out: journaled-store/kept-reservations.ts);
   * otherwise it is refused (token_mismatch), so a late restore never takes a job from a newer holder.
   */
  restoreReservation(id: string, kept: KeptReservation, now: EpochMs, replacing?: string): Promise<Outcome<Job>>;
  /** dead → ready with attempts reset; by ids, or the oldest `limit` dead jobs of a topic. */
  redrive(target: RedriveTarget, now: EpochMs): Promise<number>;

  // the timer (timer/due-timer.ts)
  /**
   * delayed → ready for jobs with runAt ≤ now, earliest first, at most `limit`. A store whose reserve takes
   * due jobs (capabilities.reserveTakesDue) may leave those of a topic its consumers are draining, still
   * naming the topic in `topics`, for a bounded time.
   */
  promoteDue(now: EpochMs, limit: number): Promise<PromoteResult>;
  /** Reservations whose TTR lapsed (deadlineAt ≤ now), earliest first. */
  listLapsed(now: EpochMs, limit: number): Promise<LapsedReservation[]>;
  /** ready → expired for jobs whose ttl ran out (runAt + ttlMs ≤ now); the jobs it expired, for their events. */
  expireDue(now: EpochMs, limit: number): Promise<JobRef[]>;
  /** The earliest time at which promoteDue, listLapsed or expireDue would find work, if any. */
  nextWakeAt(): Promise<EpochMs | null>;
  /** Deletes terminal jobs (their history and job number too) that ended before `before`. */
  purge(before: EpochMs, limit: number): Promise<number>;

  // reads
  get(id: string): Promise<Job | null>;
  history(id: string): Promise<HistoryEntry[]>;
  list(query: JobQuery): Promise<JobPage>;
  /** The first job of `topic` in `state`, in that state's order (PEEK_ORDER, peek-order.ts), or null. */
  peekNext(topic: string, state: PeekState): Promise<Job | null>;
  /** How many of `topic`'s ready jobs have a priority below `belowPriority` (beanstalkd's urgent jobs). */
  countReady(topic: string, belowPriority: number): Promise<number>;
  stats(): Promise<TopicStats[]>;
  /** Delayed jobs per due-time bucket over [from, to) (store/due-histogram.ts). */
  dueHistogram(query: DueHistogramQuery): Promise<DueCounts>;

  // what is kept after a job ends (outcomes, retention), bulk by selector, listings: docs/job-api.md
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
  setRetentionMany(ids: readonly string[], retention: Retention, now: EpochMs): Promise<void>;
  /** Deletes ended jobs whose own retention (setRetentionMany) ran out by `now`, at most `limit`; their ids. */
  purgeRetained(now: EpochMs, limit: number): Promise<string[]>;
  /** Deletes terminal jobs by id (record, history, outcome); ids not terminal are left. Returns how many. */
  deleteEndedMany(ids: readonly string[]): Promise<number>;
  /** One bounded slice of a bulk operation by selector (store/bulk.ts). */
  bulk(request: BulkRequest, now: EpochMs): Promise<BulkResult>;
  /** Delayed jobs with runAt in [from, to), next to fire first (store/listings.ts). */
  listDue(query: DueListQuery): Promise<DuePage>;
  /** Reserved jobs, earliest deadline first, with the node holding each (store/listings.ts). */
  listReserved(query: ReservedListQuery): Promise<ReservedPage>;
  /**
   * Other processes' wake-ups on a shared store (capabilities.shared): another process made jobs ready
   * or pushed an earlier due time; and, on a journaled store (capabilities.journaled), jobs a restore or
   * reconciliation of this process brought back. A plain store only this process uses never calls it.
   */
  watch(watcher: StoreWatcher): void;
  /**
   * Notices the store gives of itself (store-notices.ts): it came back empty, or runs in a setup that can
   * lose jobs. Listeners may be added before `open()` (open-time notices reach them).
   */
  notices(listener: StoreNoticeListener): void;
}

/** How stores differ, declared once and read where it matters (never found by probing for methods). */
export interface StoreCapabilities {
  /** Several delayq processes may share this store at once, and hear each other's wake-ups via `watch`. */
  readonly shared: boolean;
  /** A journal keeps the jobs and can restore them (journal/journal.ts: isJournaled reads this). */
  readonly journaled: boolean;
  /** reserve also takes due jobs promoteDue has not moved, so promoteDue may leave some (Store.reserve). */
  readonly reserveTakesDue: boolean;
  /** Jobs keep their group and reserve honours groupConcurrency (ReserveOptions). */
  readonly groups: boolean;
}

/** Cross-process wake-ups, for shared stores: another process made jobs ready or pushed an earlier due time. */
export interface StoreWatcher {
  onReady(topics: readonly string[]): void;
  onDue(at: EpochMs): void;
}

export type Outcome<T> =
  | {
      ok: true;
      value: T;
      /** A repeat of a finish already done with the same token: nothing changed. */ repeated?: true;
    }
  | { ok: false; reason: OutcomeFailure; state?: JobState };

/** The history reason of a promotion asked for by an operator (Store.runNow), not by the due time. */
export const RUN_NOW_REASON = 'run now';

export type OutcomeFailure = 'not_found' | 'wrong_state' | 'token_mismatch';

/** What cancel answers: the cancelled job, and whether it was out (reserved by a consumer or a sink). */
export interface CancelledJob {
  job: Job;
  /** true: the job was reserved when cancelled, so its current attempt may have run; job.attempts counts them. */
  dispatched: boolean;
}

export interface PushResult {
  /** false when a job with this id already existed: `job` is that job, unchanged unless `change` says. */
  created: boolean;
  job: Job;
  /** The push's onExists rule changed the existing job (push-on-exists.ts). */
  change?: PushChange;
  /** The push's dedup key was claimed inside its window (push-dedup.ts): `job` is the first job, unchanged. */
  duplicate?: true;
}

export interface PromoteResult {
  count: number;
  /** Topics that got ready jobs (or have due jobs left to their consumers), so waiting consumers can be woken. */
  topics: string[];
  /** When each kind of the timer's work is next due, seen right after promoting (null: none). */
  next: WakeTimes;
}

/** When promoteDue, listLapsed and expireDue next find work; the timer skips calls that would find none. */
export interface WakeTimes {
  /** The earliest delayed runAt, or sooner when the store must look again at due jobs it left (reserveTakesDue). */
  promoteAt: EpochMs | null;
  /** The earliest TTR deadline of a reservation. */
  deadlineAt: EpochMs | null;
  /** The earliest ttl expiry of a ready job. */
  expireAt: EpochMs | null;
}

/** The earliest of the wake times; null when no work is pending. */
export function earliestWake(next: WakeTimes): EpochMs | null {
  const times = [next.promoteAt, next.deadlineAt, next.expireAt].filter((t): t is EpochMs => t !== null);
  return times.length ? Math.min(...times) : null;
}

export interface ReserveOptions {
  /** Overrides each job's own TTR for this reservation. */
  ttrMs?: number | undefined;
  /**
   * The asked topics that have a groupConcurrency (topic → N): at most N jobs of one group of such a topic
   * are reserved at once, counted over every process on the store, and its groups are served in turn
   * (docs/flow-control.md "Groups"). Stores without `capabilities.groups` are never given it.
   */
  groupConcurrency?: ReadonlyMap<string, number> | undefined;
  /**
   * The paused groups of the asked topics (topic → groups): their jobs stay ready and are not reserved, the
   * topics' other jobs go on, whatever their groupConcurrency. Stores without `capabilities.groups` are never given it.
   */
  pausedGroups?: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  /**
   * The asked topics that have a groupRateLimit (topic → limit): each group of such a topic is handed out at most
   * that fast, a token bucket per group; a group out of tokens is passed over as a group at its bound is.
   * Stores without `capabilities.groups` are never given it.
   */
  groupRateLimits?: ReadonlyMap<string, RateLimit> | undefined;
}

/** What reserve answers: the jobs it reserved, and the ready jobs it expired on the way (their ttl ran out). */
export interface ReserveResult {
  reservations: Reservation[];
  expired: JobRef[];
  /** Ms until the next token of a group passed over for want of one (groupRateLimits): when to try again. */
  groupTokenInMs?: number | undefined;
}

export interface LapsedReservation {
  id: string;
  topic: string;
  token: string;
  attempts: number;
  deadlineAt: EpochMs;
  retry: Job['retry'];
}

/** What cancel keeps beside the transition. */
export interface CancelParams {
  /** The history entry's reason (who cancelled, or why). */
  reason?: string | undefined;
}

/** Where a retry puts the job, and why its attempt failed. */
export interface RetryParams {
  /** When the job is due again: ready at once when runAt ≤ now, else delayed until it. */
  runAt: EpochMs;
  /** Kept as the job's lastError; null: the attempt failed without a message. */
  error: string | null;
}

/** Why a job is buried, and the priority it keeps from now on. */
export interface BuryParams {
  /** Kept as the job's lastError; null: without a message. */
  error: string | null;
  /** The job takes this priority (beanstalkd's bury does); absent: its own. */
  priority?: number | undefined;
}

/** How a released job comes back; every field may be left out. */
export interface ReleaseParams {
  /** Ready at runAt, or delayed until it when runAt > now. Absent: ready at its own runAt. */
  runAt?: EpochMs | undefined;
  /** The job takes this priority (its place in the ready order follows). */
  priority?: number | undefined;
  /** The history entry's reason instead of the store's own (which says how the job came back). */
  reason?: string | undefined;
}

/** A reservation as a journal keeps it, for Store.restoreReservation. */
export interface KeptReservation {
  token: string;
  reservedAt: EpochMs;
  deadlineAt: EpochMs;
  /** Deliveries so far, this one included. */
  attempts: number;
  /** The job's own due time. */
  runAt: EpochMs;
}

/** One reservation of a finishMany. */
export interface FinishItem {
  id: string;
  token: string;
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
  /**
   * Cursor for the next page, or null on the last. The page holds every match after the cursor up to it, at
   * most `limit`, and may hold fewer, or none, while it is set: a store may stop looking after a bounded
   * stretch of jobs (store/id-pages.ts merges such pages).
   */
  next: string | null;
}

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const repeatedOk = <T>(value: T): Outcome<T> => ({ ok: true, value, repeated: true });
export const notFound = <T>(): Outcome<T> => ({ ok: false, reason: 'not_found' });
export const wrongState = <T>(state: JobState): Outcome<T> => ({ ok: false, reason: 'wrong_state', state });
export const tokenMismatch = <T>(state: JobState): Outcome<T> => ({ ok: false, reason: 'token_mismatch', state });
