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
import { mergedDueHistogram, mergedGet, mergedList, mergedListDue, mergedStats } from './merge-reads.js';
import { JournalRecovery } from '../recovery/journal-recovery.js';
import { redriveJournaled } from './redrive.js';
import { cancelJournaled, pushJournaled, rescheduleJournaled, runNowJournaled } from './producers.js';
import { JournaledOutcomes } from './outcomes.js';
import { BULK_CHUNK_SMALL, bulkBySelector } from '../../store/bulk-by-selector.js';
import type { JournaledStoreOptions } from './journaled-store-options.js';

export type { JournaledStoreOptions } from './journaled-store-options.js';

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
  private readonly restoreBatchSize: number;
  private readonly writer: JournalWriter;
  /** Loss detection, restore, reconciliation and the purges (recovery/journal-recovery.ts). */
  private readonly recovery: JournalRecovery;
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
    this.restoreBatchSize = options.restoreBatchSize ?? 5000;
    this.writer = new JournalWriter(journal, {
      nodeId: options.nodeId,
      asyncFlushMs: options.asyncFlushMs ?? 20,
      maxPendingAsync: 100_000,
      maxBatchesInFlight: options.writeConcurrency ?? 4,
      onError: (err, dropped) =>
        this.logger.error({ err, dropped }, 'journal write failed; asynchronous entries kept for retry'),
    });
    this.recovery = new JournalRecovery(this.context(), {
      clock: this.clock,
      logger: this.logger,
      restoreMode: options.restoreMode ?? DEFAULTS.journal.restoreMode,
      innerRetentionMs: options.innerRetentionMs ?? DEFAULTS.journal.innerRetentionMs,
      reconcileBatchSize: options.reconcileBatchSize ?? DEFAULTS.journal.reconcileBatchSize,
      reconcileSettleMs: options.reconcileSettleMs ?? DEFAULTS.journal.reconcileSettleMs,
    });
    this.outcomes = new JournaledOutcomes(inner, journal);
  }

  // Outcomes and retention (outcomes.ts), bulk by selector (store/bulk-by-selector.ts), the merged listing.
  private readonly outcomes: JournaledOutcomes;
  recordOutcome: Store['recordOutcome'] = (...a) => this.outcomes.recordOutcome(...a);
  outcomeOf: Store['outcomeOf'] = (id) => this.outcomes.outcomeOf(id);
  setRetentionMany: Store['setRetentionMany'] = (...a) => this.inner.setRetentionMany(...a);
  purgeRetained: Store['purgeRetained'] = (now, limit) => this.outcomes.purgeRetained(now, limit);
  deleteEndedMany: Store['deleteEndedMany'] = (ids) => this.outcomes.deleteEndedMany(ids);
  bulk: Store['bulk'] = (request, now) => bulkBySelector(this, request, now, BULK_CHUNK_SMALL);
  listDue: Store['listDue'] = (query) => mergedListDue(this.inner, this.journal, query);
  listReserved: Store['listReserved'] = (query) => this.inner.listReserved(query);

  async open(): Promise<void> {
    await this.journal.open();
    await this.inner.open();
    await this.recovery.checkInner(this.clock.now());
  }

  async close(): Promise<void> {
    await this.recovery.settled();
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
  restoreReservation: Store['restoreReservation'] = (id, kept, now, replacing) =>
    restoreReservationJournaled(this.context(), id, kept, now, replacing);

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

  /** Both sides, no further than reconciliation has seen (recovery/journal-recovery.ts). */
  purge: Store['purge'] = (before, limit) => this.recovery.purge(before, limit);

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

  // Detection, reconciliation, restore and clearAll (recovery/journal-recovery.ts).
  purgeInner: JournalRecovery['purgeInner'] = (now, limit) => this.recovery.purgeInner(now, limit);
  reconcile: JournalRecovery['reconcile'] = (now) => this.recovery.reconcile(now);
  checkInner: JournalRecovery['checkInner'] = (now) => this.recovery.checkInner(now);
  notices: JournalRecovery['notices'] = (listener) => this.recovery.notices(listener);
  status: JournalRecovery['status'] = () => this.recovery.status();
  restore: JournalRecovery['restore'] = (options, now) => this.recovery.restore(options, now);
  onRestore: JournalRecovery['onRestore'] = (step) => this.recovery.onRestore(step);
  restoreJob: JournalRecovery['restoreJob'] = (id, options, now) => this.recovery.restoreJob(id, options, now);
  clearAll: JournalRecovery['clearAll'] = (options, now) => this.recovery.clearAll(options, now);

  observeCommits(observer: JournalCommitObserver): () => void {
    return this.writer.observeCommits(observer);
  }

  private context() {
    const { inner, journal, writer, nodeId, horizonMs, restoreBatchSize: batchSize, wake } = this;
    return { inner, journal, writer, nodeId, horizonMs, batchSize, wake };
  }
}
