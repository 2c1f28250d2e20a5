import Database from 'better-sqlite3';
import { DEFAULTS } from '../../config.js';
import { LocalJobEventLog } from '../local-job-event-log.js';
import type { DueCounts, DueHistogramQuery } from '../due-histogram.js';
import { sqliteDueHistogram } from './sqlite-due-histogram.js';
import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { newTokenBase } from '../../core/ids.js';
import { compareReadyOrder } from '../ready-order.js';
import {
  pushedJob,
  type HistoryEntry,
  type Job,
  type JobEvent,
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
  type LapsedReservation,
  type Outcome,
  type PromoteResult,
  type PushResult,
  type RedriveTarget,
  type ReserveOptions,
  type ReserveResult,
  type Store,
  type StoreCapabilities,
  earliestWake,
} from '../store.js';
import { rowToJob, tokenOf, valuesToJob, type JobRow } from './job-row.js';
import { SqliteJobNumbers, SqliteTopicPauses, type SqliteAccess } from './sqlite-extras.js';
import { SqliteJobApi } from './sqlite-job-api.js';
import { bulkBySelector } from '../bulk-by-selector.js';
import { sqliteCountReady, sqlitePeekNext, sqliteReserveJob } from './sqlite-by-id.js';
import type { PeekState } from '../peek-order.js';
import { migrate } from './migrate.js';
import type { SqliteStoreOptions } from './sqlite-store-options.js';

export type { SqliteStoreOptions };
import { Checkpointer } from './checkpointer.js';
import { GroupCommit } from './group-commit.js';
import { reserveRows } from './reserve-rows.js';
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

const EXPIRED_REASON = 'ttl elapsed before a consumer reserved it';

/** SQLite's own busy wait (it blocks the event loop, so keep it short). */
const BUSY_TIMEOUT_MS = 50;

/**
 * The embedded default store: one SQLite file in WAL mode, one transaction per transition.
 * better-sqlite3 is synchronous, so every transition is atomic with respect to the event loop as well.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly capabilities: StoreCapabilities = { shared: false, journaled: false, reserveTakesDue: false };
  private db: Database.Database | undefined;
  private stmt!: Statements;
  private fencedContext!: FencedContext;
  private readonly listStatements = new Map<string, Database.Statement>();

  private readonly options: SqliteStoreOptions;
  private readonly access: SqliteAccess = { conn: () => this.conn, write: (run) => this.write(run) };
  readonly pauses = new SqliteTopicPauses(this.access);
  readonly numbers = new SqliteJobNumbers(this.access);
  readonly jobEvents: LocalJobEventLog;
  // The job API (issue 23): bodies in sqlite-job-api.ts and store/bulk-by-selector.ts.
  private readonly jobApi = new SqliteJobApi(this.access);
  recordOutcome: Store['recordOutcome'] = (...a) => this.jobApi.recordOutcome(...a);
  outcomeOf: Store['outcomeOf'] = (id) => this.jobApi.outcomeOf(id);
  setRetentionMany: Store['setRetentionMany'] = (ids, retention) => this.jobApi.setRetentionMany(ids, retention);
  purgeRetained: Store['purgeRetained'] = (now, limit) => this.jobApi.purgeRetained(now, limit);
  deleteEndedMany: Store['deleteEndedMany'] = (ids) => this.jobApi.deleteEndedMany(ids);
  bulk: Store['bulk'] = (request, now) => bulkBySelector(this, request, now);
  listDue: Store['listDue'] = (query) => this.jobApi.listDue(query);
  listReserved: Store['listReserved'] = (query) => this.jobApi.listReserved(query);

  constructor(options: SqliteStoreOptions) {
    this.options = options;
    this.jobEvents = new LocalJobEventLog(options.eventsMaxLength ?? DEFAULTS.events.maxLength);
  }

  async open(): Promise<void> {
    if (this.db) return;
    const db = new Database(this.options.path);
    db.pragma('journal_mode = WAL');
    const synchronous = this.options.synchronous ?? 'NORMAL';
    db.pragma(`synchronous = ${synchronous}`);
    // Short: better-sqlite3 is synchronous, so SQLite's busy wait freezes the event loop. Commits wait for a
    // lock held by another process asynchronously instead (group-commit.ts).
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = OFF');
    migrate(db);
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
    for (const name of RAW_STATEMENTS) this.stmt[name].raw(true);
    this.fencedContext = {
      stmt: this.stmt,
      record: (...a) => this.record(...a),
      recordMany: (...a) => this.recordMany(...a),
    };
    this.commits = new GroupCommit(db);
    if (db.pragma('journal_mode', { simple: true }) === 'wal')
      this.checkpointer = new Checkpointer(db, this.options.path, synchronous);
    this.db = db;
  }

  async close(): Promise<void> {
    this.commits?.close();
    this.commits = undefined;
    await this.checkpointer?.close();
    this.checkpointer = undefined;
    this.db?.close();
    this.db = undefined;
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
    event: JobEvent,
    state: JobState,
    attempt: number,
    reason: string | null = null,
  ): void {
    this.stmt.insertHistory.run(id, now, event, state, attempt, this.options.nodeId, reason);
  }

  /** The history rows of a batch in one statement: items are [jobId, state, attempt]. */
  private recordMany(event: JobEvent, items: HistoryItem[], now: EpochMs, reason: string | null = null): void {
    if (items.length === 0) return;
    const node = this.options.nodeId;
    this.stmt.insertHistoryMany.run({ items: JSON.stringify(items), at: now, event, node, reason });
  }

  private row(id: string): JobRow | undefined {
    return this.stmt.getJob.get(id) as JobRow | undefined;
  }

  pushMany(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
    return this.write(() => {
      const history: HistoryItem[] = [];
      const results = jobs.map((job): PushResult => {
        const ready = job.runAt <= now;
        const state: JobState = ready ? 'ready' : 'delayed';
        const expireAt = ready && job.ttlMs !== null ? job.runAt + job.ttlMs : null;
        const readyAt = ready ? now : null;
        const inserted = this.stmt.insertJob.run({
          id: job.id,
          topic: job.topic,
          tag: job.tag,
          bizKey: job.bizKey,
          body: job.body,
          runAt: job.runAt,
          priority: job.priority,
          ttrMs: job.ttrMs,
          ttlMs: job.ttlMs,
          state,
          retry: JSON.stringify(job.retry),
          expireAt,
          readyAt,
          now,
        });
        if (inserted.changes === 0) return { created: false, job: rowToJob(this.row(job.id)!) };
        history.push([job.id, state, 0]);
        return { created: true, job: pushedJob(job, now) };
      });
      this.recordMany('push', history, now);
      return results;
    });
  }

  cancel(id: string, now: EpochMs, reason?: string): Promise<Outcome<CancelledJob>> {
    return this.write((): Outcome<CancelledJob> => {
      const row = this.row(id);
      if (!row) return notFound();
      if (row.state !== 'delayed' && row.state !== 'ready' && row.state !== 'reserved')
        return wrongState(row.state as JobState);
      const updated = this.stmt.toCancelled.get({ id, now }) as JobRow;
      this.record(id, now, 'cancel', 'cancelled', updated.attempts, reason ?? null);
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
      const rows = reserveRows(this.stmt, topics, topicList, {
        count,
        now,
        base: newTokenBase(),
        ttrMs: options.ttrMs ?? null,
      });
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
      return { reservations: reserved, expired: expired.map(({ id, topic }) => ({ id, topic })) };
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

  retry(id: string, token: string, runAt: EpochMs, now: EpochMs, error: string | null): Promise<Outcome<Job>> {
    return this.fencedTransition(id, token, (row) => retryRow(this.fencedContext, row, runAt, now, error));
  }

  bury(id: string, token: string, now: EpochMs, error: string | null, priority?: number): Promise<Outcome<Job>> {
    return this.fencedTransition(id, token, (row) => buryRow(this.fencedContext, row, now, error, priority));
  }

  release: Store['release'] = (id, token, now, runAt, priority, reason) =>
    this.fencedTransition(id, token, (row) => releaseRow(this.fencedContext, row, now, runAt, priority, reason));

  reserveJob(id: string, now: EpochMs, options?: ReserveOptions): Promise<Outcome<Reservation>> {
    return sqliteReserveJob({ ...this.access, record: (...a) => this.record(...a) }, id, now, options);
  }

  peekNext(topic: string, state: PeekState): Promise<Job | null> {
    return sqlitePeekNext(this.access, topic, state);
  }

  countReady(topic: string, belowPriority: number): Promise<number> {
    return sqliteCountReady(this.access, topic, belowPriority);
  }

  redrive(target: RedriveTarget, now: EpochMs): Promise<number> {
    return this.write((): number => {
      const ids =
        'ids' in target
          ? target.ids
          : (this.stmt.oldestDead.all(target.topic, target.limit) as { id: string }[]).map((r) => r.id);
      let count = 0;
      for (const id of ids) {
        if (this.stmt.toRedriven.get({ id, now })) {
          this.record(id, now, 'redrive', 'ready', 0);
          count++;
        }
      }
      return count;
    });
  }

  promoteDue(now: EpochMs, limit: number): Promise<PromoteResult> {
    return this.write((): PromoteResult => {
      const rows = this.stmt.promoteDue.all({ now, limit }) as (JobRef & RowAttempts)[];
      const topics = new Set<string>();
      for (const row of rows) topics.add(row.topic);
      this.recordMany('promote', historyOf(rows, 'ready'), now);
      return { count: rows.length, topics: [...topics], next: wakeTimesOf(this.stmt) };
    });
  }

  /** One process uses this store: no other process's wake-ups to hear. */
  watch(): void {}

  /** A file this process holds open does not empty behind its back: nothing to notice. */
  notices(): void {}

  async listLapsed(now: EpochMs, limit: number): Promise<LapsedReservation[]> {
    return lapsedReservations(this.stmt.lapsed, now, limit);
  }

  expireDue(now: EpochMs, limit: number): Promise<JobRef[]> {
    return this.write((): JobRef[] => {
      const rows = this.stmt.expireDue.all({ now, limit }) as (JobRef & RowAttempts)[];
      this.recordMany('expire', historyOf(rows, 'expired'), now, EXPIRED_REASON);
      return rows.map(({ id, topic }) => ({ id, topic }));
    });
  }

  async nextWakeAt(): Promise<EpochMs | null> {
    return earliestWake(wakeTimesOf(this.stmt));
  }

  purge(before: EpochMs, limit: number): Promise<number> {
    return this.write((): number => {
      const ids = this.stmt.purgeCandidates.all(before, limit) as { id: string }[];
      for (const { id } of ids) {
        this.stmt.deleteJob.run(id);
        this.stmt.deleteHistory.run(id);
        this.stmt.deleteNumber.run(id);
      }
      return ids.length;
    });
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
    return topicStats(this.stmt.stats, this.stmt.nextDuePerTopic);
  }
}
