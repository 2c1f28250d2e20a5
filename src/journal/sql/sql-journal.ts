import type { Transaction } from 'kysely';
import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { type HistoryEntry, type JobState, type TopicStats } from '../../core/job.js';
import type {
  DueCursor,
  DueJournalQuery,
  Journal,
  JournalBatch,
  JournalFilter,
  JournalUpsert,
  JournalJob,
  JournalWritten,
  JournalSchedule,
  SharedHistory,
} from '../journal.js';
import { pushEntryOf, rowsToJournalJobs, rowToHistory, rowToJournalJob, type JournalDatabase } from './schema.js';
import { isEmptyBatch, MAX_ROWS_PER_STATEMENT, rowBatchOf, splitRowBatch } from './batch.js';
import type { Db, JournalDialect } from './dialect.js';
import { listSchedules, writeSchedules } from './schedules.js';
import { getMeta, setMeta, swapMeta } from './meta-rows.js';
import { loadedJob } from '../journal-jobs.js';
import { migrateJournal } from './migrate.js';
import { listDueJournalOnly } from './listings.js';
import { listJournalOnlyDue, listLoaded } from './restore-scans.js';
import * as outcomes from './outcomes.js';
import { cancelAllUnfinished, purgeEnded } from './ended-rows.js';
import { journalDueHistogram } from './due-histogram.js';
import { journalOnlyStats } from './journal-only-counts.js';
import { claimNumbers, idOfNumber } from './numbers.js';
import { endedOrReservedAmong, listReserved } from './reserved-rows.js';
import type { NumberedId } from '../../store/job-numbers.js';
import { JournalDedupClaims } from './dedup-claims.js';
import { JournalTopicState } from './topic-state.js';
import { JournalCancels } from './cancels.js';
import type { DueCounts, DueHistogramQuery } from '../../store/due-histogram.js';

export type Trx = Transaction<JournalDatabase>;

/** Tries of one transaction the database ends as a deadlock's victim. */
const ATTEMPTS_ON_DEADLOCK = 4;

/**
 * Runs a transaction again when the database chose it as a deadlock's victim: it was rolled back whole, so
 * running it again is safe (PostgreSQL's deadlock_detected 40P01, MySQL's ER_LOCK_DEADLOCK 1213).
 */
async function retryingDeadlocks<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (err) {
      const cause = (err as { cause?: { code?: unknown; errno?: unknown } }).cause;
      const deadlock = cause?.code === '40P01' || cause?.code === 'ER_LOCK_DEADLOCK' || cause?.errno === 1213;
      if (!deadlock || attempt >= ATTEMPTS_ON_DEADLOCK) throw err;
    }
  }
}

/**
 * The journal over Kysely: one implementation for both dialects, the few differences in JournalDialect.
 * Writes arrive already grouped by JournaledStore's writer, so each call is one transaction of a few
 * multi-row statements.
 */
export class SqlJournal implements Journal {
  readonly dialect: 'postgres' | 'mysql';
  private readonly makeDb: () => Db;
  private readonly sqlDialect: JournalDialect;
  private db: Db | undefined;
  private readonly cancels = new JournalCancels((query) => this.run(query));
  readonly dedupClaims = new JournalDedupClaims((query) => this.run(query));
  readonly topicState = new JournalTopicState((query) => this.run(query));

  constructor(dialect: JournalDialect, makeDb: () => Db) {
    this.sqlDialect = dialect;
    this.dialect = dialect.name;
    this.makeDb = makeDb;
  }

  async open(): Promise<void> {
    if (this.db) return;
    const db = this.makeDb();
    try {
      await this.sqlDialect.prepare(db);
      await this.sqlDialect.withMigrationLock(db, (conn) => migrateJournal(conn, this.sqlDialect.migrationsDir));
    } catch (err) {
      await db.destroy().catch(() => undefined);
      throw unavailable(this.dialect, err);
    }
    this.db = db;
  }

  async close(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    await db?.destroy();
  }

  private get conn(): Db {
    if (!this.db) throw new DelayqError('E_STORE_UNAVAILABLE', `the ${this.dialect} journal is not open`);
    return this.db;
  }

  /** Runs a query, turning driver failures into E_STORE_UNAVAILABLE. */
  private async run<T>(query: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await query(this.conn);
    } catch (err) {
      if (err instanceof DelayqError) throw err;
      throw unavailable(this.dialect, err);
    }
  }

  async write(batch: JournalBatch): Promise<JournalWritten> {
    if (isEmptyBatch(batch)) return { created: new Set(), claimed: new Map() };
    const parts = splitRowBatch(rowBatchOf(batch, Date.now()));
    const { created, claimed } = await retryingDeadlocks(() => this.run(() => this.sqlDialect.writeBatch(parts)));
    return { created: new Set(created), claimed: claimed && new Map(claimed.map((r) => [r.id, r.token])) };
  }

  async get(id: string): Promise<JournalJob | null> {
    const row = await this.run((db) =>
      db.selectFrom('delayq_jobs').selectAll().where('id', '=', id).executeTakeFirst(),
    );
    return row ? rowToJournalJob(row) : null;
  }

  async history(id: string): Promise<HistoryEntry[]> {
    const [job, rows] = await Promise.all([
      this.run((db) =>
        db
          .selectFrom('delayq_jobs')
          .select(['created_at', 'run_at', 'pushed_by'])
          .where('id', '=', id)
          .executeTakeFirst(),
      ),
      this.run((db) =>
        db
          .selectFrom('delayq_job_history')
          .select(['at', 'event', 'state', 'attempt', 'node', 'reason'])
          .where('job_id', '=', id)
          .orderBy('seq')
          .execute(),
      ),
    ]);
    // Pushed rows carry their push entry; rows written by restore or redrive have only history rows.
    return [...(job?.pushed_by ? [pushEntryOf(job)] : []), ...rows.map(rowToHistory)];
  }

  async terminalAmong(ids: readonly string[]): Promise<string[]> {
    const found: string[] = [];
    for (let i = 0; i < ids.length; i += MAX_ROWS_PER_STATEMENT) {
      const rows = await this.run((db) =>
        db
          .selectFrom('delayq_jobs')
          .select('id')
          .where('id', 'in', ids.slice(i, i + MAX_ROWS_PER_STATEMENT))
          .where('finished_at', 'is not', null)
          .execute(),
      );
      found.push(...rows.map((r) => r.id));
    }
    return found;
  }

  endedOrReservedAmong(ids: readonly string[], now: EpochMs): Promise<JournalJob[]> {
    return this.run((db) => endedOrReservedAmong(db, ids, now));
  }

  listReserved(limit: number): Promise<JournalJob[]> {
    return this.run((db) => listReserved(db, limit));
  }

  claimNumbers(numbers: readonly NumberedId[]): Promise<Map<string, number>> {
    return this.run((db) => claimNumbers(db, numbers));
  }

  idOfNumber(number: number): Promise<string | null> {
    return this.run((db) => idOfNumber(db, number));
  }

  async staleAmong(ids: readonly string[], updatedBefore: number): Promise<string[]> {
    const found: string[] = [];
    for (let i = 0; i < ids.length; i += MAX_ROWS_PER_STATEMENT) {
      const rows = await this.run((db) =>
        db
          .selectFrom('delayq_jobs')
          .select('id')
          .where('id', 'in', ids.slice(i, i + MAX_ROWS_PER_STATEMENT))
          .where('finished_at', 'is', null)
          .where('updated_at', '<', updatedBefore)
          .execute(),
      );
      found.push(...rows.map((r) => r.id));
    }
    return found;
  }

  prepareRestoreScan(): Promise<void> {
    return this.run((db) => this.sqlDialect.prepareRestoreScan(db));
  }

  async listUnfinished(afterId: string | null, limit: number): Promise<JournalJob[]> {
    const rows = await this.run((db) => {
      let q = db.selectFrom('delayq_jobs').selectAll().where('finished_at', 'is', null);
      if (afterId !== null) q = q.where('id', '>', afterId);
      return q.orderBy('id').limit(limit).execute();
    });
    return rowsToJournalJobs(rows);
  }

  listLoaded(afterId: string | null, limit: number): Promise<JournalJob[]> {
    return this.run((db) => listLoaded(db, afterId, limit));
  }

  listJournalOnlyDue(before: EpochMs, after: DueCursor | null, limit: number): Promise<JournalJob[]> {
    return this.run((db) => listJournalOnlyDue(db, before, after, limit));
  }

  async listJournalOnly(filter: JournalFilter, afterId: string | null, limit: number): Promise<JournalJob[]> {
    const rows = await this.run((db) => {
      let q = db.selectFrom('delayq_jobs').selectAll().where('loaded', '=', 0);
      if (filter.topic !== undefined) q = q.where('topic', '=', filter.topic);
      if (filter.state !== undefined) q = q.where('state', '=', filter.state);
      if (filter.bizKey !== undefined) q = q.where('biz_key', '=', filter.bizKey);
      if (filter.tag !== undefined) q = q.where('tag', '=', filter.tag);
      if (afterId !== null) q = q.where('id', '>', afterId);
      return q.orderBy('id').limit(limit).execute();
    });
    return rowsToJournalJobs(rows);
  }

  statsJournalOnly(): Promise<TopicStats[]> {
    return this.run((db) => journalOnlyStats(db, this.dialect));
  }

  dueHistogramJournalOnly(query: DueHistogramQuery): Promise<DueCounts> {
    return this.run((db) => journalDueHistogram(db, this.dialect, query));
  }

  claimDue(before: EpochMs, limit: number, load: (jobs: JournalJob[]) => Promise<void>): Promise<JournalJob[]> {
    // Two loaders' claims can cross on InnoDB's row locks; a claim rolled back is taken again (its jobs may
    // already be in the inner store: pushing them again keeps them as they are).
    return retryingDeadlocks(() => this.claimDueOnce(before, limit, load));
  }

  private claimDueOnce(
    before: EpochMs,
    limit: number,
    load: (jobs: JournalJob[]) => Promise<void>,
  ): Promise<JournalJob[]> {
    return this.run((db) =>
      db.transaction().execute(async (trx) => {
        // SKIP LOCKED: a second process's loader takes the next rows instead of waiting for or repeating these.
        const rows = await trx
          .selectFrom('delayq_jobs')
          .selectAll()
          .where('loaded', '=', 0)
          .where('finished_at', 'is', null)
          .where('run_at', '<', before)
          .orderBy('run_at')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .execute();
        if (!rows.length) return [];
        const jobs = rowsToJournalJobs(rows);
        // The rows stay locked while the inner store takes them: a crash here rolls the claim back.
        await load(jobs);
        await markLoaded(
          trx,
          jobs.map((j) => j.id),
          true,
        );
        return jobs.map((j) => loadedJob(j));
      }),
    );
  }

  /** The cancels of one turn share a transaction (sql/cancels.ts). */
  cancel(id: string, now: EpochMs): Promise<boolean> {
    return this.cancels.cancel(id, now);
  }

  async rescheduleJournalOnly(id: string, runAt: EpochMs, _now: EpochMs): Promise<boolean> {
    const result = await this.run((db) =>
      db
        .updateTable('delayq_jobs')
        .set({ run_at: runAt, updated_at: Date.now() })
        .where('id', '=', id)
        .where('loaded', '=', 0)
        .where('state', '=', 'delayed')
        .where('finished_at', 'is', null)
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async upsertJournalOnly(id: string, change: JournalUpsert): Promise<boolean> {
    const set = {
      run_at: change.runAt,
      updated_at: Date.now(),
      ...(change.body === null ? {} : { body: change.body }),
      ...(change.priority === null ? {} : { priority: change.priority }),
    };
    const result = await this.run((db) =>
      db
        .updateTable('delayq_jobs')
        .set(set)
        .where('id', '=', id)
        .where('loaded', '=', 0)
        .where('state', '=', 'delayed')
        .where('finished_at', 'is', null)
        .executeTakeFirst(),
    );
    return Number(result.numUpdatedRows) === 1;
  }

  async replaceBody(id: string, body: string): Promise<void> {
    await this.run((db) =>
      db
        .updateTable('delayq_jobs')
        .set({ body, updated_at: Date.now() })
        .where('id', '=', id)
        .where('finished_at', 'is', null)
        .execute(),
    );
  }

  async appendHistory(ids: readonly string[], states: readonly JobState[], shared: SharedHistory): Promise<void> {
    for (let i = 0; i < ids.length; i += MAX_ROWS_PER_STATEMENT) {
      const end = i + MAX_ROWS_PER_STATEMENT;
      await this.run((db) => this.sqlDialect.appendHistory(db, ids.slice(i, end), states.slice(i, end), shared));
    }
  }

  async setLoaded(ids: readonly string[], loaded: boolean): Promise<void> {
    if (!ids.length) return;
    await this.run(async (db) => {
      for (let i = 0; i < ids.length; i += MAX_ROWS_PER_STATEMENT)
        await markLoaded(db, ids.slice(i, i + MAX_ROWS_PER_STATEMENT), loaded);
    });
  }

  async purge(before: EpochMs, limit: number): Promise<number> {
    // Claims whose window ended before the purge's cut answer nothing any more.
    await this.dedupClaims.purge(before);
    return this.run((db) => purgeEnded(db, before, limit));
  }

  cancelAllUnfinished(now: EpochMs, limit: number): Promise<string[]> {
    return this.run((db) => cancelAllUnfinished(db, now, limit));
  }

  // Outcomes and deletions of ended jobs (outcomes.ts); the journal-only part of the due-time listing (listings.ts).
  saveOutcome(id: string, outcome: string, now: EpochMs): Promise<void> {
    return this.run((db) => outcomes.saveOutcome(db, id, outcome, now));
  }
  outcomeOf(id: string): Promise<string | null> {
    return this.run((db) => outcomes.outcomeOf(db, id));
  }
  deleteEnded(ids: readonly string[]): Promise<number> {
    return this.run((db) => outcomes.deleteEnded(db, ids));
  }
  async listDueJournalOnly(query: DueJournalQuery): Promise<JournalJob[]> {
    return rowsToJournalJobs(await this.run((db) => listDueJournalOnly(db, query)));
  }

  writeSchedules(schedules: readonly JournalSchedule[]): Promise<void> {
    return this.run((db) => writeSchedules(db, this.dialect, schedules));
  }

  listSchedules(): Promise<JournalSchedule[]> {
    return this.run((db) => listSchedules(db));
  }

  getMeta(name: string): Promise<string | null> {
    return this.run((db) => getMeta(db, name));
  }

  swapMeta(name: string, expected: string | null, value: string): Promise<boolean> {
    return this.run((db) => swapMeta(db, name, expected, value));
  }

  setMeta(name: string, value: string): Promise<void> {
    return this.run((db) => setMeta(db, this.dialect, name, value));
  }
}

function markLoaded(db: Db | Trx, ids: readonly string[], loaded: boolean) {
  return db
    .updateTable('delayq_jobs')
    .set({ loaded: loaded ? 1 : 0 })
    .where('id', 'in', ids)
    .execute();
}

function unavailable(dialect: string, err: unknown): DelayqError {
  const message = err instanceof Error ? err.message : String(err);
  return new DelayqError('E_STORE_UNAVAILABLE', `the ${dialect} journal failed: ${message}`, { cause: err });
}
