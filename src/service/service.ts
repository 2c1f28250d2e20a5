import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock, type EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import { defaultNodeId } from '../core/ids.js';
import { DEFAULT_JOB_DEFAULTS } from '../config.js';
import type { JobDefaults, PushInput } from '../core/job-input.js';
import type { HistoryEntry, HistoryEvent, Job, NewJob, Reservation } from '../core/job.js';
import type { FailureDecision } from '../core/retry-policy.js';
import { isJournaled } from '../journal/journal.js';
import { JournalLoader } from '../timer/loader.js';
import { TopicPauseFollower } from '../timer/topic-pause-follower.js';
import { TopicSettingsFollower } from '../timer/topic-settings-follower.js';
import { DispatchRateGate } from './dispatch-rate-gate.js';
import { ReadyWaiters, type WaitOutcome } from '../timer/ready-waiters.js';
import { DueTimer } from '../timer/due-timer.js';
import { ServiceEvents } from './service-events.js';
import { observeStore } from './observed-store.js';
import { JobEventFeed } from './job-event-feed.js';
import { JobSeriesRecorder } from './job-series-recorder.js';
import { StoreNoticeLog } from './store-notice-log.js';
import { notFoundError } from '../store/outcome-errors.js';
import type { CancelledJob, FinishItem, JobPage, JobQuery, PushResult, RedriveTarget, Store } from '../store/store.js';
import { BulkApi } from './bulk-api.js';
import { JobListings } from './job-listings.js';
import { JobOutcomes } from './job-outcomes.js';
import { JobRetention, type PushFieldNames } from './job-retention.js';
import { cursorAfter, idOfCursor } from './job-list-cursor.js';
import { JournalApi } from './journal-api.js';
import { SettleApi, type ReleaseOptions } from './settle-api.js';
import { PushApi } from './push-api.js';
import { JobsById } from './jobs-by-id.js';
import { ServiceState } from './service-state.js';
import { TopicApi } from './topic-api.js';
import { ConsumerRegistry } from './consumer-registry.js';
import { ReserveApi, type WaitingConsumer } from './reserve-api.js';
import type { FailRequest, ReserveRequest, ServiceOptions } from './service-options.js';

export type { FailRequest, ReserveRequest, ServiceOptions } from './service-options.js';
/** The transitions out of `reserved` (a cancel may be of a reserved job): each may free a place in a group. */
const LEAVES_RESERVED: ReadonlySet<HistoryEvent> = new Set(['finish', 'retry', 'bury', 'release', 'cancel']);

export type { WaitingConsumer } from './reserve-api.js';

/**
 * delayq in one object: every operation of the API, over any Store, with the timer and the long-poll
 * registry. The HTTP server, the CLI and embedding applications all use this.
 */
export class DelayqService {
  readonly store: Store;
  readonly clock: Clock;
  readonly nodeId: string;
  readonly logger: Logger;
  readonly defaults: JobDefaults;
  /** What happens to jobs, store call timings and long-poll waits (service-events.ts). */
  readonly events = new ServiceEvents();
  private readonly timer: DueTimer;
  private readonly loader: JournalLoader | undefined;
  private readonly waiters = new ReadyWaiters();
  readonly pauses: TopicPauseFollower;
  /** Topics' flow-control settings, as kept in the store (topic-settings-follower.ts). */
  readonly topicSettings: TopicSettingsFollower;
  /** Reserve within topics' dispatch rate limits (dispatch-rate-gate.ts). */
  private readonly rates: DispatchRateGate;
  private readonly runTimer: boolean;
  private readonly state = new ServiceState();
  /** The store's notices: resets (came back empty) logged at error level and counted, setup warnings. */
  readonly storeNotices: StoreNoticeLog;
  /** Results and errors consumers report, and the outcome kept with a job (job-outcomes.ts). */
  readonly outcomes: JobOutcomes;
  /** Pushes that keep their jobs for a retention of their own or their topic's (job-retention.ts). */
  readonly retention: JobRetention;
  /** Bulk operations by selector, a bounded slice per call (bulk-api.ts). */
  readonly bulk: BulkApi;
  /** The due-time and reserved listings (job-listings.ts). */
  readonly listings: JobListings;
  /** Counts per topic, pause and resume, the next job of a topic, the due histogram (topic-api.ts). */
  readonly topics: TopicApi;
  /** Restore, restore one job, clear-all and status, when a SQL journal backs the store (journal-api.ts). */
  readonly journal: JournalApi;
  /** Ended and failed jobs for followers (SSE, SDK iterator; job-event-feed.ts). */
  readonly jobEvents: JobEventFeed;
  /** touch, finish, fail and release: settling a reservation (settle-api.ts). */
  private readonly settling: SettleApi;
  /** Pushes, validated and stored a batch or a turn's single pushes at a time (push-api.ts). */
  private readonly pushing: PushApi;
  /** One job by its id outside a reservation (jobs-by-id.ts). */
  private readonly byId: JobsById;
  /** Reserve with long-poll, within pauses, group bounds and rate limits (reserve-api.ts). */
  private readonly reserving: ReserveApi;
  /** This process's transitions into the store-wide figures over time (job-series-recorder.ts). */
  readonly series: JobSeriesRecorder;
  /** Who consumes which topics, this process's and, on a shared store, every process's (consumer-registry.ts). */
  readonly consumers: ConsumerRegistry;

  constructor(options: ServiceOptions) {
    // A shared store's clock wins over the local one: processes on one Redis agree on time.
    this.clock = options.clock ?? options.store.clock ?? systemClock;
    this.store = observeStore(options.store, this.events, this.clock);
    this.nodeId = options.nodeId ?? defaultNodeId(hostname(), process.pid);
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.defaults = { ...DEFAULT_JOB_DEFAULTS, ...options.jobDefaults };
    this.runTimer = options.runTimer ?? true;
    this.storeNotices = new StoreNoticeLog(this.logger);
    this.jobEvents = new JobEventFeed(this.events, this.store.jobEvents);
    this.store.notices(this.storeNotices); // before open: open-time notices count too
    this.series = new JobSeriesRecorder(this.events, this.store, this.clock, {
      sampleBacklog: this.runTimer,
      onError: (err) => this.logger.warn({ err }, 'writing the figures over time failed; those counts are lost'),
    });
    this.consumers = new ConsumerRegistry({
      directory: this.store.consumers,
      nodeId: this.nodeId,
      clock: this.clock,
      shared: this.store.capabilities.shared,
      logger: this.logger,
    });
    this.timer = new DueTimer(
      this.store,
      this.clock,
      {
        onReady: (topics) => this.waiters.notify(topics),
        onError: (err) => this.logger.error({ err, code: (err as DelayqError).code }, 'timer tick failed; retrying'),
      },
      options.timer,
    );
    this.pauses = new TopicPauseFollower(
      this.store.pauses,
      this.clock,
      (topics) => this.waiters.notify(topics),
      this.logger,
    );
    this.topicSettings = new TopicSettingsFollower(
      this.store.topicSettings,
      (topics) => this.waiters.notify(topics),
      this.logger,
    );
    this.rates = new DispatchRateGate(this.store.dispatchRates, this.topicSettings);
    // A job leaving `reserved` frees a place in its group: a reserve waiting on a topic with groupConcurrency
    // (its ready jobs all of groups at their bound) tries again, as no job became ready to wake it.
    this.events.on('job', ({ event, topic }) => {
      if (LEAVES_RESERVED.has(event) && this.topicSettings.of(topic).groupConcurrency !== undefined)
        this.waiters.notify([topic]);
    });
    const journaled = isJournaled(this.store) ? this.store : undefined;
    this.journal = new JournalApi(journaled);
    this.loader = journaled
      ? new JournalLoader(
          journaled,
          this.clock,
          {
            onLoaded: () => this.timer.wakeNow(),
            onError: (err) =>
              this.logger.error({ err, code: (err as DelayqError).code }, 'journal loader round failed; retrying'),
          },
          options.loader,
        )
      : undefined;
    const run = <T>(operation: () => Promise<T>): Promise<T> => this.state.run(operation);
    const { store, pauses, series, topicSettings } = this;
    this.topics = new TopicApi({ store, pauses, topicSettings, series, now: () => this.clock.now(), run });
    const calls = { store: this.store, now: () => this.clock.now(), run };
    this.outcomes = new JobOutcomes(calls);
    const pushBatch = (inputs: readonly PushInput[], fieldNames: PushFieldNames) =>
      this.pushBatch(inputs, { fieldNames });
    this.retention = new JobRetention({ ...calls, pushBatch }, options.retentionByTopic);
    this.bulk = new BulkApi({
      ...calls,
      moved: (topics, dueAt) => {
        if (topics.length) this.waiters.notify(topics);
        else this.waiters.notifyAll();
        if (dueAt !== null) this.timer.notifyDue(dueAt);
      },
    });
    this.listings = new JobListings(calls);
    this.pushing = new PushApi({
      ...{ store, clock: this.clock, defaults: this.defaults, run },
      afterWrite: (jobs) => this.afterWrite(jobs),
    });
    this.byId = new JobsById({
      ...{ store, clock: this.clock, run, afterWrite: (jobs) => this.afterWrite(jobs) },
      normalize: (input, now) => this.normalize(input, now),
      notFound: (id) => this.notFound(id),
      wake: (topics) => this.waiters.notify(topics),
    });
    this.reserving = new ReserveApi({
      ...{ store, clock: this.clock, waiters: this.waiters, pauses, topicSettings, rates: this.rates },
      ...{ timer: this.timer, consumers: this.consumers, events: this.events, run },
      isOpen: () => this.state.isOpen,
    });
    this.settling = new SettleApi({
      store: this.store,
      clock: this.clock,
      outcomes: this.outcomes,
      jobEvents: this.jobEvents,
      run,
      afterWrite: (jobs) => this.afterWrite(jobs),
    });
  }

  async start(): Promise<void> {
    if (this.state.phase !== 'new') return;
    await this.store.open();
    this.jobEvents.start();
    this.series.start();
    await this.pauses.start();
    await this.topicSettings.start();
    // A shared store tells of peers' wake-ups; a journaled one also of jobs its restores bring back.
    if (this.store.capabilities.shared || this.store.capabilities.journaled) {
      this.store.watch({
        onReady: (topics) => this.waiters.notify(topics),
        onDue: (at) => this.timer.notifyDue(at),
      });
    }
    if (this.runTimer) {
      this.timer.start();
      this.loader?.start();
    }
    this.consumers.start();
    this.state.opened();
  }

  get isOpen(): boolean {
    return this.state.isOpen;
  }

  /** Long-poll requests waiting right now. */
  get waitingConsumers(): number {
    return this.waiters.size;
  }

  /** Grows whenever jobs may have become ready; read it before a reserve try, pass it to waitReady. */
  get readyEpoch(): number {
    return this.waiters.epoch;
  }

  /**
   * Graceful shutdown: refuse new calls, wake long-polls (they answer empty), let in-flight calls
   * settle, stop the timer, close the store. Nothing acknowledged is lost; reserved jobs stay reserved
   * and lapse to a retry if their consumers never finish them.
   */
  async close(): Promise<void> {
    if (this.state.phase === 'closed' || this.state.phase === 'closing') return;
    const settled = this.state.closing();
    this.waiters.notifyAll();
    await settled;
    await this.loader?.stop();
    this.pauses.stop();
    this.topicSettings.stop();
    await this.timer.stop();
    this.jobEvents.stop();
    await this.series.stop();
    await this.consumers.stop();
    await this.store.close();
    this.state.closed();
  }

  /** Every public operation runs through here: refused unless open, tracked for graceful close. */
  private run<T>(operation: () => Promise<T>): Promise<T> {
    return this.state.run(operation);
  }

  /** Validates a push without storing it (the HTTP layer uses it to name bad fields in a batch). */
  normalize(input: PushInput, now: EpochMs = this.clock.now(), ownIds = false): NewJob {
    return this.pushing.normalize(input, now, ownIds);
  }

  /** One job, validated alone (a refusal names its field), stored with the turn's other single pushes (push-api.ts). */
  push(input: PushInput): Promise<PushResult> {
    return this.pushing.push(input);
  }

  /** Validates every job first, then stores them all in one call (push-api.ts). */
  pushBatch(
    inputs: readonly PushInput[],
    options: { fieldNames?: PushFieldNames; ownIds?: boolean } = {},
  ): Promise<PushResult[]> {
    return this.pushing.pushBatch(inputs, options);
  }

  /** Tells the timer and the waiters about jobs that were just stored or moved. */
  private afterWrite(jobs: readonly Job[]): void {
    const readyTopics = new Set<string>();
    let earliest = Number.POSITIVE_INFINITY;
    for (const job of jobs) {
      if (job.state === 'ready') {
        readyTopics.add(job.topic);
        // A ready job with a ttl must expire on time even if no consumer comes: the timer wakes for it.
        if (job.ttlMs !== null) earliest = Math.min(earliest, job.runAt + job.ttlMs);
      } else if (job.state === 'delayed') earliest = Math.min(earliest, job.runAt);
    }
    if (readyTopics.size) this.waiters.notify([...readyTopics]);
    if (earliest !== Number.POSITIVE_INFINITY) this.timer.notifyDue(earliest);
  }

  get(id: string): Promise<Job> {
    return this.byId.get(id);
  }

  /** The answer to a job id the store does not hold (a front end gives it for a job its caller may not see). */
  notFound(id: string): DelayqError {
    return this.storeNotices.explainNotFound(notFoundError(id));
  }

  history(id: string): Promise<HistoryEntry[]> {
    return this.byId.history(id);
  }

  /** Cancels a delayed, ready or reserved job; `dispatched` says whether it was out (reserved) at that moment. */
  cancel(id: string, reason?: string): Promise<CancelledJob> {
    return this.byId.cancel(id, reason);
  }

  /** Moves a delayed (or ready) job to a new due time. */
  reschedule(
    id: string,
    when: { delayMs?: number | string; runAt?: number | string; timeZone?: string },
  ): Promise<Job> {
    return this.byId.reschedule(id, when);
  }

  /** Makes a delayed job (waiting for its due time or for a retry) ready at once; its history records it. */
  runNow(id: string): Promise<Job> {
    return this.byId.runNow(id);
  }

  /**
   * Reserves up to `count` ready jobs of `topics`, waiting up to `waitMs` for one (reserve-api.ts). The caller
   * must `release` what it got if it cannot hand the jobs over.
   */
  reserve(request: ReserveRequest, signal?: AbortSignal, consumer?: WaitingConsumer): Promise<Reservation[]> {
    return this.reserving.reserve(request, signal, consumer);
  }

  /** Waits until jobs of `topics` may be ready, without reserving (reserve-api.ts). */
  waitReady(topics: readonly string[], waitMs: number, signal?: AbortSignal, seenEpoch?: number): Promise<WaitOutcome> {
    return this.reserving.waitReady(topics, waitMs, signal, seenEpoch);
  }

  /** Reserves one ready, delayed or dead job by id (Store.reserveJob), whatever its topic's pause. */
  reserveJob(id: string, options: { ttrMs?: number | undefined } = {}): Promise<Reservation> {
    return this.reserving.reserveJob(id, options);
  }

  touch(id: string, token: string, ttrMs?: number): Promise<Job> {
    return this.settling.touch(id, token, ttrMs);
  }

  /** Finishes a reservation; `result` (any JSON value) is kept with the job (job-api.ts). */
  finish(id: string, token: string, result?: unknown): Promise<Job> {
    return this.settling.finish(id, token, result);
  }

  /**
   * finish for many reservations in one store call (batch acknowledgement): in order, each item's job, or the
   * DelayqError its own finish would have thrown (a stale token refuses its item only).
   */
  finishMany(items: readonly FinishItem[]): Promise<(Job | DelayqError)[]> {
    return this.settling.finishMany(items);
  }

  /** A consumer failed the job: retry after its backoff, or bury it when no attempts remain. */
  fail(id: string, token: string, request: FailRequest = {}): Promise<{ job: Job; decision: FailureDecision }> {
    return this.settling.fail(id, token, request);
  }

  /**
   * Gives a reservation back: ready at once in its old place, or after `delayMs` (as push's); the attempt does
   * not count. With `priority`, the job takes that priority.
   */
  release(id: string, token: string, options: ReleaseOptions = {}): Promise<Job> {
    return this.settling.release(id, token, options);
  }

  /** Dead jobs (of a topic, or by id) made ready again. */
  redrive(target: RedriveTarget): Promise<number> {
    return this.byId.redrive(target);
  }

  /** A page of jobs in id order; its `next` is a cursor (job-list-cursor.ts), not an id. */
  list(query: JobQuery): Promise<JobPage> {
    return this.run(async () => {
      const page = await this.store.list({ ...query, cursor: idOfCursor(query.cursor) });
      return { jobs: page.jobs, next: page.next === null ? null : cursorAfter(page.next) };
    });
  }

  /** Deletes terminal jobs that ended before `before` (the timer also does this on its own). */
  purge(before: EpochMs, limit = 10_000): Promise<number> {
    return this.run(() => this.store.purge(before, limit));
  }
}
