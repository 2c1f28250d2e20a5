import { JournaledTopicPauses, JournaledTopicSettings } from '../journaled-topic-state.js';
import { DEFAULTS } from '../../config.js';
import type { JobEventLog } from '../../store/job-event-log.js';
import type { JobSeries } from '../../store/job-series.js';
import type { JobNumbers } from '../../store/job-numbers.js';
import type { PeekState } from '../../store/peek-order.js';
import { reserveJobJournaled } from './by-id.js';
import type { TopicPauses } from '../../store/topic-pauses.js';
import type { TopicSettingsStore } from '../../store/topic-settings.js';
import type { DispatchRates } from '../../store/dispatch-rates.js';
import type { ConsumerDirectory } from '../../store/consumer-directory.js';
import { pino, type Logger } from 'pino';
import type { DueCounts, DueHistogramQuery } from '../../store/due-histogram.js';
import { systemClock, type Clock, type EpochMs } from '../../core/clock.js';
import { type HistoryEntry, type Job, type NewJob, type Reservation, type TopicStats } from '../../core/job.js';
import {
  type JobPage,
  type JobRef,
  type JobQuery,
  type LapsedReservation,
  type BuryParams,
  type CancelledJob,
  type CancelParams,
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
  type StoreWatcher,
} from '../../store/store.js';
import type { Journal, JournalCommitObserver, JournalMaintenance, JournalOperations } from '../journal.js';
import { MARKER_RUN_AT, toNewJob } from '../journal-jobs.js';
import {
  clearAllJobs,
  restoreFromJournal,
  restoreJob,
  type ClearAllOptions,
  type ClearAllSummary,
  type RestoreOptions,
  type RestoreSummary,
} from '../recovery/restore.js';
import { JournalWriter } from './journal-writer.js';
import {
  finishManyJournaled,
  reserveJournaled,
  restoreReservationJournaled,
  settleJournaled,
  touchJournaled,
  type SettleStep,
} from './consumers.js';
import { JournaledJobNumbers } from './numbers.js';
import { InnerMonitor, type InnerCheck, type JournalStatus, type RestoreMode } from '../recovery/inner-monitor.js';
import { mergedDueHistogram, mergedGet, mergedList, mergedListDue, mergedStats } from './merge-reads.js';
import { JournalReconciler, type ReconcileSummary } from '../recovery/reconciler.js';
import { redriveJournaled } from './redrive.js';
import { cancelJournaled, pushJournaled, rescheduleJournaled, runNowJournaled } from './producers.js';
import type { StoreNoticeListener } from '../../store/store-notices.js';
import { JournaledOutcomes } from './outcomes.js';
import { bulkBySelector } from '../../store/bulk-by-selector.js';

export interface JournaledStoreOptions {
  /** Name of this process in the journal's history. */
  nodeId: string;
  /** Jobs due further away than this stay only in the journal until the loader brings them in. @defaultValue config's journal.horizonMs */
  horizonMs?: number;
  /** What to do when the inner store comes back empty: restore at once, or only report it. @defaultValue config's journal.restoreMode */
  restoreMode?: RestoreMode;
  /** Terminal jobs are purged from the inner store this long after they ended (the journal keeps them). @defaultValue config's journal.innerRetentionMs */
  innerRetentionMs?: number;
  /** Delay allowed to batch asynchronous journal entries (retry, release). @defaultValue 20 ms */
  asyncFlushMs?: number;
  /** Journal batches (transactions) written at once by the group commit. @defaultValue 4 */
  writeConcurrency?: number;
  /** Jobs per page when restoring. @defaultValue 5000 */
  restoreBatchSize?: number;
  /** Unfinished journal rows compared with the inner store per reconciliation pass. @defaultValue config's journal.reconcileBatchSize */
  reconcileBatchSize?: number;
  /** A journal row missing from the inner store is pushed back only once it was not written for this long. @defaultValue config's journal.reconcileSettleMs */
  reconcileSettleMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/**
 * A Store decorator that makes an inner store (Redis) rebuildable from a SQL journal.
 * Write path — push: journal, then inner. cancel: journal, then inner. reserve, touch, finish, bury,
 * reschedule, redrive: inner, then journal. Each is acknowledged only once the journal committed (group
 * commit), so a crash between the two writes can cause a redelivery, never the loss of an acknowledged job,
 * the return of an acknowledged finish or cancel, or a reservation taken from its holder by a restore.
 * retry and release are journaled asynchronously (within `asyncFlushMs`); promote and expire are not
 * journaled (the inner store has the detail), so a restore can deliver such a job earlier than planned
 * (or, for a lost release, after the reservation's deadline): at least once, never lost.
 */
export class JournaledStore implements Store, JournalMaintenance, JournalOperations {
  readonly kind: string;
  readonly capabilities: StoreCapabilities;
  readonly inner: Store;
  readonly journal: Journal;
  readonly horizonMs: number;
  private readonly nodeId: string;
  /** The inner store's authoritative clock (Redis TIME for a shared store), else the given or steady one. */
  readonly clock: Clock;
  private readonly logger: Logger;
  private readonly innerRetentionMs: number;
  private readonly restoreBatchSize: number;
  private readonly writer: JournalWriter;
  private readonly monitor: InnerMonitor;
  private readonly reconciler: JournalReconciler;
  private readonly restoreSteps: ((now: EpochMs) => Promise<void>)[] = [];
  /** Paused topics and groups are the inner store's, each change journaled too, so a restore puts them back. */
  readonly pauses: TopicPauses;
  /** So are topic settings (docs/flow-control.md); the rate limits' token buckets are the inner store's only. */
  readonly topicSettings: TopicSettingsStore;
  readonly dispatchRates: DispatchRates;
  readonly numbers: JobNumbers;
  /** Job events are the inner store's: on Redis, one stream every process reads (docs/events.md). */
  readonly jobEvents: JobEventLog;
  /** So are the figures over time: the transitions are the inner store's (docs/series.md). */
  readonly series: JobSeries;
  /** Consumers are the inner store's: on Redis, every process's (not journaled). */
  readonly consumers: ConsumerDirectory;

  constructor(inner: Store, journal: Journal, options: JournaledStoreOptions) {
    this.inner = inner;
    this.journal = journal;
    this.pauses = new JournaledTopicPauses(inner.pauses, journal.topicState);
    this.topicSettings = new JournaledTopicSettings(inner.topicSettings, journal.topicState);
    this.dispatchRates = inner.dispatchRates;
    this.numbers = new JournaledJobNumbers(inner.numbers, journal);
    this.jobEvents = inner.jobEvents;
    this.series = inner.series;
    this.consumers = inner.consumers;
    this.kind = `${inner.kind}+${journal.dialect}`;
    this.capabilities = {
      shared: inner.capabilities.shared,
      journaled: true,
      reserveTakesDue: inner.capabilities.reserveTakesDue,
      groups: inner.capabilities.groups,
    };
    this.nodeId = options.nodeId;
    this.horizonMs = options.horizonMs ?? DEFAULTS.journal.horizonMs;
    this.clock = options.clock ?? inner.clock ?? systemClock;
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.innerRetentionMs = options.innerRetentionMs ?? DEFAULTS.journal.innerRetentionMs;
    this.restoreBatchSize = options.restoreBatchSize ?? 5000;
    this.writer = new JournalWriter(journal, {
      nodeId: options.nodeId,
      asyncFlushMs: options.asyncFlushMs ?? 20,
      maxPendingAsync: 100_000,
      maxBatchesInFlight: options.writeConcurrency ?? 4,
      onError: (err, dropped) =>
        this.logger.error({ err, dropped }, 'journal write failed; asynchronous entries kept for retry'),
    });
    this.monitor = new InnerMonitor(
      inner,
      journal,
      options.restoreMode ?? DEFAULTS.journal.restoreMode,
      this.logger,
      (now) => this.restore({ expire: true }, now),
      () => this.reconciler.expedite(),
    );
    this.outcomes = new JournaledOutcomes(inner, journal);
    this.reconciler = new JournalReconciler(
      { ...this.context(), batchSize: options.reconcileBatchSize ?? DEFAULTS.journal.reconcileBatchSize },
      options.reconcileSettleMs ?? DEFAULTS.journal.reconcileSettleMs,
    );
  }

  // Outcomes and retention (outcomes.ts), bulk by selector (store/bulk-by-selector.ts), the merged listing.
  private readonly outcomes: JournaledOutcomes;
  recordOutcome: Store['recordOutcome'] = (...a) => this.outcomes.recordOutcome(...a);
  outcomeOf: Store['outcomeOf'] = (id) => this.outcomes.outcomeOf(id);
  setRetentionMany: Store['setRetentionMany'] = (...a) => this.inner.setRetentionMany(...a);
  purgeRetained: Store['purgeRetained'] = (now, limit) => this.outcomes.purgeRetained(now, limit);
  deleteEndedMany: Store['deleteEndedMany'] = (ids) => this.outcomes.deleteEndedMany(ids);
  bulk: Store['bulk'] = (request, now) => bulkBySelector(this, request, now);
  listDue: Store['listDue'] = (query) => mergedListDue(this.inner, this.journal, query);
  listReserved: Store['listReserved'] = (query) => this.inner.listReserved(query);

  async open(): Promise<void> {
    await this.journal.open();
    await this.inner.open();
    await this.monitor.check(this.clock.now());
  }

  async close(): Promise<void> {
    await this.monitor.settled();
    await this.writer.close();
    await this.inner.close();
    await this.journal.close();
  }

  // ——— producers ———

  /** Journal first, then the inner store (journaled-store/producers.ts). */
  pushMany(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
    return pushJournaled(this.context(), jobs, now);
  }

  cancel(id: string, now: EpochMs, params: CancelParams = {}): Promise<Outcome<CancelledJob>> {
    return cancelJournaled(this.context(), id, now, params);
  }

  reschedule(id: string, runAt: EpochMs, now: EpochMs): Promise<Outcome<Job>> {
    return rescheduleJournaled(this.context(), id, runAt, now);
  }

  runNow(id: string, now: EpochMs): Promise<Outcome<Job>> {
    return runNowJournaled(this.context(), id, now);
  }

  /** Peers' wake-ups come from the inner store (Redis pub/sub); jobs this process restores wake its watchers. */
  watch(watcher: StoreWatcher): void {
    this.watchers.push(watcher);
    this.inner.watch(watcher);
  }

  private readonly watchers: StoreWatcher[] = [];
  private readonly wake: StoreWatcher = {
    onReady: (topics) => this.watchers.forEach((w) => w.onReady(topics)),
    onDue: (at) => this.watchers.forEach((w) => w.onDue(at)),
  };

  // ——— consumers ———

  /** Inner store first, then the journal (durably); jobs the journal ended or holds reserved are given back (journaled-store/ends.ts). */
  reserve(topics: readonly string[], count: number, now: EpochMs, options?: ReserveOptions): Promise<ReserveResult> {
    return reserveJournaled(this.context(), this.logger, topics, count, now, options);
  }

  touch(id: string, token: string, now: EpochMs, ttrMs?: number): Promise<Outcome<Job>> {
    return touchJournaled(this.context(), id, token, now, () => this.inner.touch(id, token, now, ttrMs));
  }

  finish(id: string, token: string, now: EpochMs): Promise<Outcome<Job>> {
    return this.settle({ id, token, event: 'finish', now }, () => this.inner.finish(id, token, now));
  }

  finishMany: Store['finishMany'] = (items, now) => finishManyJournaled(this.context(), items, now);

  retry(id: string, token: string, now: EpochMs, params: RetryParams): Promise<Outcome<Job>> {
    return this.settle({ id, token, event: 'retry', now, reason: params.error }, () =>
      this.inner.retry(id, token, now, params),
    );
  }

  bury(id: string, token: string, now: EpochMs, params: BuryParams): Promise<Outcome<Job>> {
    return this.settle({ id, token, event: 'bury', now, reason: params.error }, () =>
      this.inner.bury(id, token, now, params),
    );
  }

  release(id: string, token: string, now: EpochMs, params: ReleaseParams = {}): Promise<Outcome<Job>> {
    return this.settle({ id, token, event: 'release', now }, () => this.inner.release(id, token, now, params));
  }

  /** The consumers' transitions (journaled-store/consumers.ts). */
  private settle(step: SettleStep, run: () => Promise<Outcome<Job>>): Promise<Outcome<Job>> {
    return settleJournaled(this.context(), step, run);
  }

  /** The inner store's, journaled asynchronously as a reserve is (journaled-store/consumers.ts). */
  restoreReservation: Store['restoreReservation'] = (id, kept, now) =>
    restoreReservationJournaled(this.context(), id, kept, now);

  reserveJob(id: string, now: EpochMs, options?: ReserveOptions): Promise<Outcome<Reservation>> {
    return reserveJobJournaled(this.context(), id, now, options);
  }

  redrive(target: RedriveTarget, now: EpochMs): Promise<number> {
    return redriveJournaled(this.context(), target, now);
  }

  /** The inner store's: it holds every live job within the horizon, and dead jobs for innerRetentionMs. */
  peekNext(topic: string, state: PeekState): Promise<Job | null> {
    return this.inner.peekNext(topic, state);
  }

  /** The inner store's: ready jobs are always there. */
  countReady(topic: string, belowPriority: number): Promise<number> {
    return this.inner.countReady(topic, belowPriority);
  }

  // ——— the timer ———

  async promoteDue(now: EpochMs, limit: number): Promise<PromoteResult> {
    const promoted = await this.inner.promoteDue(now, limit);
    // The inner store's marker job (journal-jobs.ts) is never due: it is no wake-up.
    const { promoteAt } = promoted.next;
    return promoteAt === null || promoteAt < MARKER_RUN_AT
      ? promoted
      : { ...promoted, next: { ...promoted.next, promoteAt: null } };
  }

  listLapsed(now: EpochMs, limit: number): Promise<LapsedReservation[]> {
    return this.inner.listLapsed(now, limit);
  }

  expireDue(now: EpochMs, limit: number): Promise<JobRef[]> {
    return this.inner.expireDue(now, limit);
  }

  async nextWakeAt(): Promise<EpochMs | null> {
    const at = await this.inner.nextWakeAt();
    return at === null || at >= MARKER_RUN_AT ? null : at;
  }

  async purge(before: EpochMs, limit: number): Promise<number> {
    // Without the loader's pass just before it: one pass of its own, so a cycle can complete.
    if (((await this.reconciler.purgeBefore(before)) ?? -1) < before) await this.reconcile(this.clock.now());
    const [inner, journal] = await Promise.all([
      this.reconciler.purgeInner(before, limit),
      this.journal.purge(before, limit),
    ]);
    return Math.max(inner, journal);
  }

  // ——— reads: the inner store, then the journal for what only it holds ———

  get(id: string): Promise<Job | null> {
    return mergedGet(this.inner, this.journal, id);
  }

  async history(id: string): Promise<HistoryEntry[]> {
    const inner = await this.inner.history(id);
    if (inner.length) return inner;
    await this.writer.flush();
    return this.journal.history(id);
  }

  list(query: JobQuery): Promise<JobPage> {
    return mergedList(this.inner, this.journal, query);
  }

  stats(): Promise<TopicStats[]> {
    return mergedStats(this.inner, this.journal);
  }

  dueHistogram(query: DueHistogramQuery): Promise<DueCounts> {
    return mergedDueHistogram(this.inner, this.journal, query);
  }

  // ——— journal operations: tiering, detection, restore, clearAll ———

  /** Loads journal-only jobs entering the horizon into the inner store; several processes never load the same rows. */
  async loadDue(now: EpochMs, limit: number): Promise<number> {
    const loaded = await this.journal.claimDue(now + this.horizonMs, limit, (jobs) =>
      this.inner.pushMany(jobs.map(toNewJob), now).then(() => undefined),
    );
    return loaded.length;
  }

  /** Terminal jobs leave the inner store soon after they end; the journal keeps them for the retention. */
  purgeInner(now: EpochMs, limit: number): Promise<number> {
    return this.reconciler.purgeInner(now - this.innerRetentionMs, limit);
  }

  /** One reconciliation pass (docs/journal.md): journal rows brought in line with the inner store. Not while it is lost. */
  reconcile(now: EpochMs): Promise<ReconcileSummary | null> {
    return this.monitor.status(0).inner === 'ok' ? this.reconciler.pass(now) : Promise.resolve(null);
  }

  /** Checks the inner store's marker; restores (auto) or reports (manual) when it is gone. */
  checkInner(now: EpochMs): Promise<InnerCheck> {
    return this.monitor.check(now);
  }

  /** The inner store's notices (resets, risky setup); a reset also triggers the marker check, so the restore. */
  notices(listener: StoreNoticeListener): void {
    this.monitor.forwardNotices(listener, () => this.clock.now());
  }

  observeCommits(observer: JournalCommitObserver): () => void {
    return this.writer.observeCommits(observer);
  }

  status(): JournalStatus {
    return this.monitor.status(this.writer.pending);
  }

  /** The seeds' /reStore: every unfinished journaled job back into the inner store. Idempotent. */
  async restore(options: RestoreOptions, now: EpochMs = this.clock.now()): Promise<RestoreSummary> {
    await this.writer.flush();
    await this.monitor.restoring(now);
    const summary = await restoreFromJournal(this.context(), options, now);
    for (const step of this.restoreSteps) await step(now);
    await this.monitor.restored(summary);
    return summary;
  }

  onRestore(step: (now: EpochMs) => Promise<void>): void {
    this.restoreSteps.push(step);
  }

  /** The seeds' /reStore/{id}. */
  async restoreJob(id: string, options: RestoreOptions, now: EpochMs = this.clock.now()): Promise<RestoreSummary> {
    await this.writer.flush();
    return restoreJob(this.context(), id, options, now);
  }

  /** The seeds' /clearAll: cancels every unfinished job; needs `confirm: 'clear-all'`; audited in history. */
  async clearAll(options: ClearAllOptions, now: EpochMs = this.clock.now()): Promise<ClearAllSummary> {
    await this.writer.flush();
    return clearAllJobs(this.context(), options, now);
  }

  private context() {
    const { inner, journal, writer, nodeId, horizonMs, restoreBatchSize: batchSize, wake } = this;
    return { inner, journal, writer, nodeId, horizonMs, batchSize, wake };
  }
}
