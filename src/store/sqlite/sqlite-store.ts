import type Database from 'better-sqlite3';
import { DEFAULTS } from '../../config.js';
import { LocalJobEventLog } from '../local-job-event-log.js';
import type { DueCounts, DueHistogramQuery } from '../due-histogram.js';
import { sqliteDueHistogram } from './sqlite-due-histogram.js';
import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { newTokenBase } from '../../core/ids.js';
import { compareReadyOrder } from '../ready-order.js';
import {
  type HistoryEntry,
  type Job,
  type HistoryEvent,
  type JobState,
  type NewJob,
  type Reservation,
  type TopicStats,
} from '../../core/job.js';
import {
  notFound,
  ok,
  type CancelledJob,
  type FinishItem,
  wrongState,
  type JobPage,
  type JobRef,
  type JobQuery,
  type BuryParams,
  type CancelParams,
  type LapsedReservation,
  type Outcome,
  type PromoteResult,
  type PushResult,
  type RedriveTarget,
  type ReleaseParams,
  type RetryParams,
  type ReserveOptions,
  type ReserveResult,
  type Store,
  type StoreCapabilities,
  earliestWake,
  RUN_NOW_REASON,
} from '../store.js';
import { rowToJob, tokenOf, valuesToJob, type JobRow } from './job-row.js';
import { SqliteJobNumbers, SqliteTopicPauses, type SqliteAccess } from './sqlite-extras.js';
import { SqliteTopicSettings } from './sqlite-topic-settings.js';
import { LocalDispatchRates } from '../local-dispatch-rates.js';
import { LocalConsumerDirectory } from '../consumer-directory.js';
import { SqliteListings } from './sqlite-listings.js';
import { SqliteOutcomes } from './sqlite-outcomes.js';
import { SqliteJobSeries } from './sqlite-job-series.js';
import { BULK_CHUNK_SMALL, bulkBySelector } from '../bulk-by-selector.js';
import { sqliteCountReady, sqlitePeekNext, sqliteReserveJob, sqliteRestoreReservation } from './sqlite-by-id.js';
import type { PeekState } from '../peek-order.js';
import type { SqliteStoreOptions } from './sqlite-store-options.js';

export type { SqliteStoreOptions };
import { Checkpointer } from './checkpointer.js';
import type { SqliteOwnerLock } from './owner-lock.js';
import { openStoreFile } from './store-file.js';
import { GroupCommit } from './group-commit.js';
import { reserveRows } from './reserve-rows.js';
import { GroupBuckets, groupLimits, reserveGroupedRows } from './group-reserve.js';
import { pushRows } from './sqlite-push.js';
import { RAW_STATEMENTS, SQL } from './statements.js';
import {
  buryRow,
  fencedRow,
  finishBatch,
  finishOne,
  historyOf,
  type HistoryItem,
  type RowAttempts,
  releaseRow,
  retryRow,
  toWaiting,
  touchRow,
  type FencedContext,
} from './sqlite-fenced.js';
import { lapsedReservations, listJobs, topicStats, wakeTimesOf, type Statements } from './sqlite-reads.js';
import { EXPIRED_REASON, expireDueRows, promoteDueRows, purgeEndedRows, redriveRows } from './sqlite-scheduling.js';

/** Ended jobs a purge deletes in one transaction: the longest the event loop waits on a purge. */
const PURGE_CHUNK = 200;

/**
 * The embedded default store: one SQLite file in WAL mode, one transaction per transition.
 * better-sqlite3 is synchronous, so every transition is atomic with respect to the event loop as well.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly capabilities: StoreCapabilities = {
    shared: false,
    journaled: false,
    reserveTakesDue: false,
    groups: true,
  };
  /** Each topic's group reserve served last (group-reserve.ts), so its groups take turns across calls. */
  private readonly groupTurns = new Map<string, string>();
  /** Each rate-limited group's token bucket (group-reserve.ts). */
  private readonly groupBuckets = new GroupBuckets();
  private db: Database.Database | undefined;
  private owner: SqliteOwnerLock | undefined;
  private stmt!: Statements;
  private fencedContext!: FencedContext;
  private readonly listStatements = new Map<string, Database.Statement>();

  private readonly options: SqliteStoreOptions;
  private readonly access: SqliteAccess = { conn: () => this.conn, write: (run) => this.write(run) };
  readonly pauses = new SqliteTopicPauses(this.access);
  readonly topicSettings = new SqliteTopicSettings(this.access);
  readonly dispatchRates = new LocalDispatchRates();
  readonly numbers = new SqliteJobNumbers(this.access);
  readonly consumers = new LocalConsumerDirectory();
  readonly jobEvents: LocalJobEventLog;
  readonly series = new SqliteJobSeries(this.access);
  // Outcomes and retention (sqlite-outcomes.ts), bulk by selector (store/bulk-by-selector.ts), listings (sqlite-listings.ts).
  private readonly outcomes = new SqliteOutcomes(this.access);
  private readonly listings = new SqliteListings(this.access);
  recordOutcome: Store['recordOutcome'] = (...a) => this.outcomes.recordOutcome(...a);
  outcomeOf: Store['outcomeOf'] = (id) => this.outcomes.outcomeOf(id);
  setRetentionMany: Store['setRetentionMany'] = (ids, retention) => this.outcomes.setRetentionMany(ids, retention);
  purgeRetained: Store['purgeRetained'] = (now, limit) => this.outcomes.purgeRetained(now, limit);
  deleteEndedMany: Store['deleteEndedMany'] = (ids) => this.outcomes.deleteEndedMany(ids);
  bulk: Store['bulk'] = (request, now) => bulkBySelector(this, request, now, BULK_CHUNK_SMALL);
  listDue: Store['listDue'] = (query) => this.listings.listDue(query);
  listReserved: Store['listReserved'] = (query) => this.listings.listReserved(query);

  constructor(options: SqliteStoreOptions) {
    this.options = options;
    this.jobEvents = new LocalJobEventLog(options.eventsMaxLength ?? DEFAULTS.events.maxLength);
  }

  async open(): Promise<void> {
    if (this.db) return;
    const { db, owner } = openStoreFile(this.options);
    this.owner = owner;
    const synchronous = this.options.synchronous ?? 'NORMAL';
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
    for (const name of RAW_STATEMENTS) this.stmt[name].raw(true);
    this.fencedContext = {
      stmt: this.stmt,
      record: (...a) => this.record(...a),
      recordMany: (...a) => this.recordMany(...a),
    };
    this.commits = new GroupCommit(db);
    if (db.pragma('journal_mode', { simple: true }) === 'wal')
      this.checkpointer = new Checkpointer(
        db,
        this.options.path,
        synchronous,
        this.commits,
        this.options.walTruncateBytes,
      );
    this.db = db;
  }

  async close(): Promise<void> {
    this.commits?.close();
    this.commits = undefined;
    const checkpointer = this.checkpointer;
    await checkpointer?.close();
    this.checkpointer = undefined;
    this.db?.close();
    this.db = undefined;
    checkpointer?.release();
    this.owner?.release();
    this.owner = undefined;
  }

  /** Every write transition goes through the group commit (group-commit.ts). */
  private commits: GroupCommit | undefined;
  /** Checkpoints the WAL off the event loop (checkpointer.ts); none for an in-memory database. */
  private checkpointer: Checkpointer | undefined;

  /** Resolves once the WAL has been checkpointed after this call (tests; at once without a WAL). */
  checkpointed(): Promise<void> {
    return this.checkpointer?.checkpointed() ?? Promise.resolve();
  }

  private write<T>(run: () => T): Promise<T> {
    if (!this.commits) return Promise.reject(new DelayqError('E_STORE_UNAVAILABLE', 'the SQLite store is not open'));
    return this.commits.write(run);
  }

  private get conn(): Database.Database {
    if (!this.db) throw new DelayqError('E_STORE_UNAVAILABLE', 'the SQLite store is not open');
    return this.db;
  }

  private record(
    id: string,
    now: EpochMs,
    event: HistoryEvent,
    state: JobState,
    attempt: number,
    reason: string | null = null,
  ): void {
    this.stmt.insertHistory.run(id, now, event, state, attempt, this.options.nodeId, reason);
  }

  /** The history rows of a batch in one statement: items are [jobId, state, attempt]. */
  private recordMany(event: HistoryEvent, items: HistoryItem[], now: EpochMs, reason: string | null = null): void {
    if (items.length === 0) return;
    const node = this.options.nodeId;
    this.stmt.insertHistoryMany.run({ items: JSON.stringify(items), at: now, event, node, reason });
  }

  private row(id: string): JobRow | undefined {
    return this.stmt.getJob.get(id) as JobRow | undefined;
  }

  pushMany(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
    return this.write(() => pushRows(this.fencedContext, jobs, now));
  }

  cancel(id: string, now: EpochMs, params: CancelParams = {}): Promise<Outcome<CancelledJob>> {
    return this.write((): Outcome<CancelledJob> => {
      const row = this.row(id);
      if (!row) return notFound();
      if (row.state !== 'delayed' && row.state !== 'ready' && row.state !== 'reserved')
        return wrongState(row.state as JobState);
      const updated = this.stmt.toCancelled.get({ id, now }) as JobRow;
      this.record(id, now, 'cancel', 'cancelled', updated.attempts, params.reason ?? null);
      return ok({ job: rowToJob(updated), dispatched: row.state === 'reserved' });
    });
  }

  reschedule(id: string, runAt: EpochMs, now: EpochMs): Promise<Outcome<Job>> {
    return this.write((): Outcome<Job> => {
      const row = this.row(id);
      if (!row) return notFound();
      if (row.state !== 'delayed' && row.state !== 'ready') return wrongState(row.state as JobState);
      const updated = toWaiting(this.stmt, row, runAt, now, null);
      this.record(id, now, 'reschedule', updated.state as JobState, updated.attempts, `runAt=${runAt}`);
      return ok(rowToJob(updated));
    });
  }

  runNow(id: string, now: EpochMs): Promise<Outcome<Job>> {
    return this.write((): Outcome<Job> => {
      const row = this.row(id);
      if (!row) return notFound();
      if (row.state !== 'delayed') return wrongState(row.state as JobState);
      const updated = toWaiting(this.stmt, row, now, now, null);
      this.record(id, now, 'promote', 'ready', updated.attempts, RUN_NOW_REASON);
      return ok(rowToJob(updated));
    });
  }

  async reserve(
    topics: readonly string[],
    count: number,
    now: EpochMs,
    options: ReserveOptions = {},
  ): Promise<ReserveResult> {
    if (topics.length === 0 || count <= 0) return { reservations: [], expired: [] };
    return this.write((): ReserveResult => {
      const topicList = JSON.stringify(topics);
      const expired = this.stmt.expireReadyOfTopics.all({ now, topics: topicList }) as (JobRef & RowAttempts)[];
      this.recordMany('expire', historyOf(expired, 'expired'), now, EXPIRED_REASON);
      const params = { count, now, base: newTokenBase(), ttrMs: options.ttrMs ?? null };
      const groups = groupLimits(options);
      const grouped = groups
        ? reserveGroupedRows(this.stmt, topics, groups, this.groupTurns, this.groupBuckets, params)
        : undefined;
      const rows = grouped ? grouped.rows : reserveRows(this.stmt, topics, topicList, params);
      const reserved = rows.map((v): Reservation => {
        const job = valuesToJob(v);
        return { job, token: tokenOf(v)!, deadlineAt: job.deadlineAt! };
      });
      this.recordMany(
        'reserve',
        historyOf(
          reserved.map((r) => r.job),
          'reserved',
        ),
        now,
      );
      reserved.sort((a, b) => compareReadyOrder(a.job, b.job));
      const expiredRefs = expired.map(({ id, topic }) => ({ id, topic }));
      return { reservations: reserved, expired: expiredRefs, groupTokenInMs: grouped?.tokenInMs };
    });
  }

  private fencedTransition(id: string, token: string, apply: (row: JobRow) => JobRow): Promise<Outcome<Job>> {
    return this.write((): Outcome<Job> => {
      const found = fencedRow(this.stmt, id, token);
      if ('ok' in found) return found;
      return ok(rowToJob(apply(found)));
    });
  }

  touch(id: string, token: string, now: EpochMs, ttrMs?: number): Promise<Outcome<Job>> {
    return this.fencedTransition(id, token, (row) => touchRow(this.fencedContext, row, now, ttrMs));
  }

  finish(id: string, token: string, now: EpochMs): Promise<Outcome<Job>> {
    return this.write(() => finishOne(this.fencedContext, id, token, now));
  }

  /** One transaction for the batch, no savepoint per item: an item's refusal is an outcome, never a throw. */
  finishMany(items: readonly FinishItem[], now: EpochMs): Promise<Outcome<Job>[]> {
    return this.write(() => finishBatch(this.fencedContext, items, now));
  }

  retry(id: string, token: string, now: EpochMs, params: RetryParams): Promise<Outcome<Job>> {
    return this.fencedTransition(id, token, (row) => retryRow(this.fencedContext, row, now, params));
  }

  bury(id: string, token: string, now: EpochMs, params: BuryParams): Promise<Outcome<Job>> {
    return this.fencedTransition(id, token, (row) => buryRow(this.fencedContext, row, now, params));
  }

  release(id: string, token: string, now: EpochMs, params: ReleaseParams = {}): Promise<Outcome<Job>> {
    return this.fencedTransition(id, token, (row) => releaseRow(this.fencedContext, row, now, params));
  }

  private readonly byIdAccess = { ...this.access, record: this.record.bind(this) };
  restoreReservation: Store['restoreReservation'] = (id, kept, now, replacing) =>
    sqliteRestoreReservation(this.byIdAccess, id, kept, now, replacing);

  reserveJob(id: string, now: EpochMs, options?: ReserveOptions): Promise<Outcome<Reservation>> {
    return sqliteReserveJob(this.byIdAccess, id, now, options);
  }

  peekNext(topic: string, state: PeekState): Promise<Job | null> {
    return sqlitePeekNext(this.access, topic, state);
  }

  countReady(topic: string, belowPriority: number): Promise<number> {
    return sqliteCountReady(this.access, topic, belowPriority);
  }

  redrive(target: RedriveTarget, now: EpochMs): Promise<number> {
    return this.write(() => redriveRows(this.fencedContext, target, now));
  }

  promoteDue(now: EpochMs, limit: number): Promise<PromoteResult> {
    return this.write(() => promoteDueRows(this.fencedContext, now, limit));
  }

  /** One process uses this store: no other process's wake-ups to hear. */
  watch(): void {}

  /** A file this process holds open does not empty behind its back: nothing to notice. */
  notices(): void {}

  async listLapsed(now: EpochMs, limit: number): Promise<LapsedReservation[]> {
    return lapsedReservations(this.stmt.lapsed, now, limit);
  }

  expireDue(now: EpochMs, limit: number): Promise<JobRef[]> {
    return this.write(() => expireDueRows(this.fencedContext, now, limit));
  }

  async nextWakeAt(): Promise<EpochMs | null> {
    return earliestWake(wakeTimesOf(this.stmt));
  }

  /**
   * A transaction per PURGE_CHUNK jobs, the event loop free between them: one purge of 10,000 in a transaction
   * held the loop for 33 s on a 6 GB file (each delete reads its index pages back from the file).
   */
  async purge(before: EpochMs, limit: number): Promise<number> {
    let purged = 0;
    while (purged < limit) {
      const chunk = Math.min(PURGE_CHUNK, limit - purged);
      const n = await this.write(() => purgeEndedRows(this.fencedContext, before, chunk));
      purged += n;
      if (n < chunk) break;
    }
    return purged;
  }

  async get(id: string): Promise<Job | null> {
    const row = this.row(id);
    return row ? rowToJob(row) : null;
  }

  async history(id: string): Promise<HistoryEntry[]> {
    return this.stmt.history.all(id) as HistoryEntry[];
  }

  async list(query: JobQuery): Promise<JobPage> {
    return listJobs(this.conn, this.listStatements, query);
  }

  async dueHistogram(query: DueHistogramQuery): Promise<DueCounts> {
    return sqliteDueHistogram(this.db!, query);
  }

  async stats(): Promise<TopicStats[]> {
    return topicStats(this.stmt.stats, this.stmt.nextDueOfTopic);
  }
}
