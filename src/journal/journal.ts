import type { EpochMs } from '../core/clock.js';
import type { DueCounts, DueHistogramQuery } from '../store/due-histogram.js';
import type { HistoryEntry, Job, JobState, TopicStats } from '../core/job.js';
import type { NumberedId } from '../store/job-numbers.js';
import type { Store } from '../store/store.js';
import type { DedupClaims } from '../store/dedup-claims.js';
import type { TopicStateJournal } from './topic-state-journal.js';

/**
 * The SQL journal: a durable copy of every job (body included) and of its history, beside a fast inner
 * store (Redis). It is not a third Store: it answers restore, far-future jobs (tiering) and audit.
 * Each dialect (postgres/, mysql/) implements it; `journaled-store/journaled-store.ts` decorates a Store with it.
 */
export interface Journal {
  readonly dialect: 'postgres' | 'mysql';
  /** The dedup window's claims (store/dedup-claims.ts): kept here, so a wipe of the inner store keeps them. */
  readonly dedupClaims: DedupClaims;
  /** Topics' settings and pauses (sql/topic-state.ts): kept here too, so a wipe of the inner store keeps them. */
  readonly topicState: TopicStateJournal;

  /** Connect and apply the numbered migrations. Safe to call twice. */
  open(): Promise<void>;
  close(): Promise<void>;

  /**
   * One durable batch, in one transaction: new jobs (insert-if-absent), then job upserts, then history.
   * Returns the ids this batch created (an id already present is a duplicate push), and the guarded upserts it
   * wrote where the database reports them.
   */
  write(batch: JournalBatch): Promise<JournalWritten>;

  get(id: string): Promise<JournalJob | null>;
  history(id: string): Promise<HistoryEntry[]>;

  /** Those of `ids` whose journal row is terminal (finished_at set): a restore re-checks what it pushed. */
  terminalAmong(ids: readonly string[]): Promise<string[]>;
  /**
   * The rows of `ids` a reserve must look at before it delivers: ended ones (finished_at set) and ones reserved
   * until after `now` (a reservation the inner store may have lost). One read.
   */
  endedOrReservedAmong(ids: readonly string[], now: EpochMs): Promise<JournalJob[]>;
  /** Unfinished rows the journal holds reserved, in id order (reconciliation looks at them first after a start). */
  listReserved(limit: number): Promise<JournalJob[]>;
  /**
   * Records job numbers: each id of `numbers` whose row has none takes its number. Answers the number that
   * stands for each id the journal holds (an earlier one wins), so a number survives the inner store's loss.
   */
  claimNumbers(numbers: readonly NumberedId[]): Promise<Map<string, number>>;
  /** The id a job number was recorded for, or null. */
  idOfNumber(number: number): Promise<string | null>;
  /** Those of `ids` still unfinished whose row was last written before `updatedBefore` (process wall clock). */
  staleAmong(ids: readonly string[], updatedBefore: number): Promise<string[]>;
  /**
   * Called once before a restore's scan: PostgreSQL refreshes the job table's planner statistics, since without
   * them (a table filled since its last ANALYZE) each keyset page is planned as a sort of every remaining row.
   */
  prepareRestoreScan(): Promise<void>;
  /** Unfinished jobs (finished_at IS NULL) with id > afterId, in id order: the reconciler's scan. */
  listUnfinished(afterId: string | null, limit: number): Promise<JournalJob[]>;
  /**
   * A restore's first scan: the unfinished jobs handed to the inner store (loaded = 1) with id > afterId, in id
   * order, from an index of those rows only, so a restore never reads the journal-only backlog.
   */
  listLoaded(afterId: string | null, limit: number): Promise<JournalJob[]>;
  /**
   * A restore's second scan: the journal-only unfinished jobs due before `before` (those the loader claims
   * next), after `after` in (run_at, id) order, from the loader's index.
   */
  listJournalOnlyDue(before: EpochMs, after: DueCursor | null, limit: number): Promise<JournalJob[]>;
  /** Jobs that live only in the journal (loaded = 0), in id order, filtered like Store.list. */
  listJournalOnly(filter: JournalFilter, afterId: string | null, limit: number): Promise<JournalJob[]>;
  /** Per topic and state counts of journal-only jobs, with their earliest due time. */
  statsJournalOnly(): Promise<TopicStats[]>;
  /** Journal-only delayed jobs per due-time bucket (sql/due-histogram.ts). */
  dueHistogramJournalOnly(query: DueHistogramQuery): Promise<DueCounts>;

  /**
   * Tiering: claims up to `limit` journal-only unfinished jobs due before `before` (FOR UPDATE SKIP LOCKED,
   * so several processes never take the same rows), hands them to `load` while the rows stay locked, and
   * marks them loaded when `load` resolves. If `load` throws, nothing is marked. Returns the jobs loaded.
   */
  claimDue(before: EpochMs, limit: number, load: (jobs: JournalJob[]) => Promise<void>): Promise<JournalJob[]>;

  /** Cancels an unfinished job in the journal; false when it is missing or already terminal. */
  cancel(id: string, now: EpochMs): Promise<boolean>;
  /** Moves a journal-only delayed job; false when it is not one. */
  rescheduleJournalOnly(id: string, runAt: EpochMs, now: EpochMs): Promise<boolean>;
  /**
   * A push's onExists rule on a journal-only delayed job (core/push-on-exists.ts): its new due time, and for
   * replace its body and priority, in one statement; false when it is not one.
   */
  upsertJournalOnly(id: string, change: JournalUpsert): Promise<boolean>;
  /** Keeps the body a push replaced on an unfinished job the inner store holds (write() keeps the rest). */
  replaceBody(id: string, body: string): Promise<void>;
  /**
   * Appends one history row per id, all alike but for the job and its state (a restore's page): one statement
   * of two columns, not a row object per job through the writer. Written at once (not group-committed).
   */
  appendHistory(ids: readonly string[], states: readonly JobState[], shared: SharedHistory): Promise<void>;
  /** Marks jobs as (not) held by the inner store. */
  setLoaded(ids: readonly string[], loaded: boolean): Promise<void>;

  /** Deletes terminal jobs (and their history) that ended before `before`; never an unfinished one. */
  purge(before: EpochMs, limit: number): Promise<number>;
  /** Marks every unfinished job cancelled (the seed's clearAll); returns how many. */
  cancelAllUnfinished(now: EpochMs, limit: number): Promise<string[]>;

  /** A consumer's outcome of a job as the inner store keeps it (JSON text), replacing an earlier one. */
  saveOutcome(id: string, outcome: string, now: EpochMs): Promise<void>;
  outcomeOf(id: string): Promise<string | null>;
  /** Deletes ended jobs by id (with history and outcome); unfinished ones are left. Returns how many. */
  deleteEnded(ids: readonly string[]): Promise<number>;
  /** Journal-only delayed jobs due in [from, to) after the cursor (at, id), in (runAt, id) order. */
  listDueJournalOnly(query: DueJournalQuery): Promise<JournalJob[]>;
  /** Keeps schedule records (sql/schedules.ts); each row only if not older than the stored one. */
  writeSchedules(schedules: readonly JournalSchedule[]): Promise<void>;
  /** The schedules kept (deleted ones left out), by name: what a restore puts back. */
  listSchedules(): Promise<JournalSchedule[]>;

  getMeta(name: string): Promise<string | null>;
  setMeta(name: string, value: string): Promise<void>;
  /** Compare-and-set: writes `value` only if the current value is `expected` (null: absent); true when written. */
  swapMeta(name: string, expected: string | null, value: string): Promise<boolean>;
}

/** What `timer/loader.ts` drives on a journaled store (implemented by JournaledStore). */
export interface JournalMaintenance {
  /** Moves journal-only jobs due before now + horizon into the inner store; returns how many. */
  loadDue(now: EpochMs, limit: number): Promise<number>;
  /** Purges terminal jobs from the inner store (the journal keeps them for its retention). */
  purgeInner(now: EpochMs, limit: number): Promise<number>;
  /** Looks for the inner store's marker; restores or reports when it is gone. */
  checkInner(now: EpochMs): Promise<InnerCheck>;
  /** One reconciliation pass over the next unfinished journal rows; null while the inner store is lost. */
  reconcile(now: EpochMs): Promise<{ checked: number; ended: number; repushed: number } | null>;
}

/**
 * The operator's side of a journaled store (the seeds' /reStore, /reStore/{id}, /clearAll) plus its status.
 * DelayqService finds it by capability (StoreCapabilities.journaled, read by `isJournaled`), never by instanceof.
 */
export interface JournalOperations {
  /** The journal itself, for what keeps its own copy there (schedules). */
  readonly journal: Journal;
  restore(options: RestoreOptions, now?: EpochMs): Promise<RestoreSummary>;
  /** Adds work every full restore does once the jobs are back (schedules put back into the store). */
  onRestore(step: (now: EpochMs) => Promise<void>): void;
  restoreJob(id: string, options: RestoreOptions, now?: EpochMs): Promise<RestoreSummary>;
  clearAll(options: ClearAllOptions, now?: EpochMs): Promise<ClearAllSummary>;
  status(): JournalStatus;
  /** Calls `observer` for each job row committed (see JournalCommitObserver); answers the unsubscribe function. */
  observeCommits(observer: JournalCommitObserver): () => void;
}

/**
 * One job row committed: `lagMs` from when it was handed to the journal writer (right after the store
 * write; for a push, right before it) to the commit of its transaction. `durable`: the caller waited for it
 * (push, cancel, finish, bury…); else it was journaled asynchronously (reserve, retry, release).
 */
export type JournalCommitObserver = (lagMs: number, durable: boolean) => void;

/** A store that declares a journal (capabilities.journaled) offers the journal's maintenance and operations. */
export function isJournaled<T extends Store>(store: T): store is T & JournalMaintenance & JournalOperations {
  return store.capabilities.journaled;
}

/** ok: marker present; fresh: first start, marker written; restored: it was lost and is restored; lost: manual mode. */
export type InnerCheck = 'ok' | 'fresh' | 'restored' | 'lost';

/** A journal row: the job as last journaled, plus where it lives. */
export interface JournalJob extends Job {
  /** true: the inner store holds it (or held it); false: only the journal has it (beyond the horizon). */
  loaded: boolean;
  /** While reserved: the reservation's token (with the job's reservedAt and deadlineAt), so a restore keeps it. */
  token?: string | null;
  /** The job's beanstalkd number, once it was given one (read from the journal; written by claimNumbers). */
  number?: number | null;
}

/** A place in a (run_at, id) ordered scan: the last row read. */
export interface DueCursor {
  runAt: EpochMs;
  id: string;
}

export interface DueJournalQuery {
  topic?: string | undefined;
  from: EpochMs;
  to: EpochMs;
  /** The cursor: after (at, id). */
  at: EpochMs;
  id: string;
  limit: number;
}

export interface JournalUpsert {
  runAt: EpochMs;
  /** null: kept (extend). */
  body: string | null;
  priority: number | null;
}

export interface JournalFilter {
  topic?: string | undefined;
  state?: JobState | undefined;
  bizKey?: string | undefined;
  tag?: string | undefined;
}

export interface JournalBatch {
  /** New jobs; written only when the id is absent. Their `push` history entry is part of the row. */
  inserts: JournalJob[];
  /** The node that pushed `inserts`. */
  pushedBy?: string | undefined;
  /**
   * Job upserts after a transition. `force: false` (live transitions, journaled asynchronously) never
   * overwrites a row that is already terminal, so a late reserve cannot undo a finish, nor takes a row back to
   * ready or delayed over a reservation that began after the one the step ended (a late retry or release).
   */
  upserts: { job: JournalJob; force: boolean }[];
  history: (HistoryEntry & { jobId: string })[];
}

/** What a batch write reports (Journal.write). */
export interface JournalWritten {
  /** The inserted jobs this batch created. */
  created: Set<string>;
  /**
   * The guarded upserts (`force: false`) this batch wrote, each with the token its row holds after the write (null:
   * none); an upsert the guard refused is absent. null where the database does not report it (MySQL/MariaDB).
   */
  claimed: Map<string, string | null> | null;
}

/** The fields of Journal.appendHistory's rows that are the same for every job of the call. */
export type SharedHistory = Omit<HistoryEntry, 'state'>;

export interface RestoreOptions {
  /**
   * The seeds' `expire`: true re-delivers jobs whose due time already passed (at once); false does not,
   * and marks them `expired` in the journal with the reason, so they are never restored later either.
   * @defaultValue true
   */
  expire?: boolean;
}

export interface RestoreSummary {
  /** Unfinished jobs read from the journal (a full restore reads those the inner store held or that are due within the horizon). */
  scanned: number;
  /** Pushed into the inner store (it did not have them). */
  restored: number;
  /** The inner store already had them (restore is idempotent). */
  alreadyPresent: number;
  /** Past due and skipped because expire = false (marked expired). */
  skippedExpired: number;
  /** Due beyond the horizon: left in the journal for the loader (after a full restore: all journal-only unfinished jobs). */
  leftInJournal: number;
  /** Pushed, but finished or cancelled meanwhile: cancelled again in the inner store. */
  raced: number;
  startedAt: EpochMs;
  durationMs: number;
}

export interface ClearAllOptions {
  /** Must be the string 'clear-all': clearAll cancels every unfinished job. */
  confirm: string;
  /** Who asked, for the audit entry. */
  actor?: string | undefined;
  reason?: string | undefined;
}

export interface ClearAllSummary {
  cancelled: number;
  startedAt: EpochMs;
  durationMs: number;
}

export type RestoreMode = 'auto' | 'manual';

export interface JournalStatus {
  restoreMode: RestoreMode;
  /** ok: the marker is there; lost: the inner store lost its data and waits for a restore (manual mode). */
  inner: 'unchecked' | 'ok' | 'restoring' | 'lost';
  lastCheckAt: EpochMs | null;
  lostSince: EpochMs | null;
  lastRestore: RestoreSummary | null;
  /** Journal entries queued and not yet committed. */
  pendingJournalWrites: number;
}

/**
 * A schedule as the journal keeps it: the record as opaque JSON (src/schedule owns its shape; the journal
 * sits below it) and its version. A write is applied only if its version (createdAt, revision, cursorAt)
 * is at least the stored one, so writes from several instances arriving out of order keep the newest;
 * `record: null` is a deletion (a tombstone one revision above the deleted record).
 */
export interface JournalSchedule {
  name: string;
  createdAt: number;
  revision: number;
  cursorAt: number;
  record: string | null;
}
