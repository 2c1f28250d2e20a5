import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock, type EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import { defaultNodeId, newJobId } from '../core/ids.js';
import { DEFAULT_JOB_DEFAULTS } from '../config.js';
import { normalizePush, validateJobId, validateTopic, type JobDefaults, type PushInput } from '../core/job-input.js';
import type { HistoryEntry, HistoryEvent, Job, NewJob, Reservation } from '../core/job.js';
import type { FailureDecision } from '../core/retry-policy.js';
import { isJournaled } from '../journal/journal.js';
import { JournalLoader } from '../timer/loader.js';
import { TopicPauseFollower } from '../timer/topic-pause-follower.js';
import { TopicSettingsFollower } from '../timer/topic-settings-follower.js';
import { groupsUnsupported } from '../core/topic-settings.js';
import { DispatchRateGate } from './dispatch-rate-gate.js';
import { ReadyWaiters, type WaitOutcome } from '../timer/ready-waiters.js';
import { DueTimer } from '../timer/due-timer.js';
import { ServiceEvents } from './service-events.js';
import { observeStore } from './observed-store.js';
import { JobEventFeed } from './job-event-feed.js';
import { JobSeriesRecorder } from './job-series-recorder.js';
import { StoreNoticeLog } from './store-notice-log.js';
import { notDelayed, notFoundError, unwrap } from '../store/outcome-errors.js';
import {
  type CancelledJob,
  type FinishItem,
  type JobPage,
  type JobQuery,
  type PushResult,
  type RedriveTarget,
  type ReserveOptions,
  type Store,
} from '../store/store.js';
import { refuseIdConflicts } from './id-conflict.js';
import { BulkApi } from './bulk-api.js';
import { JobListings } from './job-listings.js';
import { JobOutcomes } from './job-outcomes.js';
import { JobRetention, type PushFieldNames } from './job-retention.js';
import { cursorAfter, idOfCursor } from './job-list-cursor.js';
import { JournalApi } from './journal-api.js';
import { SettleApi, type ReleaseOptions } from './settle-api.js';
import { SinglePushes } from './single-pushes.js';
import { ServiceState } from './service-state.js';
import { TopicApi } from './topic-api.js';
import { ConsumerRegistry, type TrackedConsumer } from './consumer-registry.js';
import {
  checkReserve,
  pickTime,
  type FailRequest,
  type ReserveRequest,
  type ServiceOptions,
} from './service-options.js';

export type { FailRequest, ReserveRequest, ServiceOptions } from './service-options.js';

/** The transitions out of `reserved` (a cancel may be of a reserved job): each may free a place in a group. */
const LEAVES_RESERVED: ReadonlySet<HistoryEvent> = new Set(['finish', 'retry', 'bury', 'release', 'cancel']);

/** A long-poll's client, listed among the consumers (GET /v1/consumers) while its reserve waits. */
export interface WaitingConsumer {
  /** The client's address (`ip:port`). */
  remote: string | null;
}

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
  /** Single pushes, one store call per event-loop turn (single-pushes.ts). */
  private readonly singlePushes: SinglePushes;
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
    this.singlePushes = new SinglePushes({ store: this.store, afterWrite: (jobs) => this.afterWrite(jobs) });
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
   * Waits until jobs of `topics` may be ready (or the time is up, or `signal` aborts), without reserving: for
   * a front end that batches its reserve tries itself (the beanstalkd listener). `seenEpoch` (readyEpoch before
   * the try that found nothing) makes a notification in between return at once.
   */
  async waitReady(
    topics: readonly string[],
    waitMs: number,
    signal?: AbortSignal,
    seenEpoch?: number,
  ): Promise<WaitOutcome> {
    // A topic whose rate limit refused the last try: woken ('notified') when its next token comes.
    const tokenInMs = this.rates.nextTokenInMs(topics);
    if (tokenInMs === null || tokenInMs >= waitMs) return this.waiters.wait(topics, waitMs, signal, seenEpoch);
    const outcome = await this.waiters.wait(topics, tokenInMs, signal, seenEpoch);
    return outcome === 'timeout' ? 'notified' : outcome;
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
    const job = normalizePush(input, { now, defaults: this.defaults, newId: newJobId, ownIds });
    if (job.group !== undefined && !this.store.capabilities.groups) throw groupsUnsupported('group', this.store.kind);
    return job;
  }

  /**
   * One job, validated alone (a refusal names its field), stored with the other single pushes of this
   * event-loop turn in one store call (single-pushes.ts).
   */
  push(input: PushInput): Promise<PushResult> {
    return this.run(async () => {
      const now = this.clock.now();
      return this.singlePushes.push(this.normalize(input, now), now);
    });
  }

  /**
   * Validates every job first, then stores them all in one call; an id held by a job of another topic is refused
   * (id-conflict.ts). A refusal names `jobs[i].field` (a batch request, whatever its size) or, for `'single'`
   * (one job's own request), the field alone. `ownIds`: delayq's own ids (ticks), which may hold `~`.
   */
  pushBatch(
    inputs: readonly PushInput[],
    { fieldNames = 'batch', ownIds }: { fieldNames?: PushFieldNames; ownIds?: boolean } = {},
  ): Promise<PushResult[]> {
    return this.run(async () => {
      const now = this.clock.now();
      const jobs = inputs.map((input, index) => {
        try {
          return this.normalize(input, now, ownIds);
        } catch (err) {
          if (err instanceof DelayqError && fieldNames === 'batch' && err.field !== undefined) {
            throw new DelayqError(err.code, `jobs[${index}].${err.message}`, { field: `jobs[${index}].${err.field}` });
          }
          throw err;
        }
      });
      const results = await this.store.pushMany(jobs, now);
      this.afterWrite(results.filter((r) => r.created || r.change).map((r) => r.job));
      refuseIdConflicts(jobs, results, fieldNames === 'batch');
      return results;
    });
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
    return this.run(async () => {
      const job = await this.store.get(validateJobId(id));
      if (!job) throw this.notFound(id);
      return job;
    });
  }

  /** The answer to a job id the store does not hold (a front end gives it for a job its caller may not see). */
  notFound(id: string): DelayqError {
    return this.storeNotices.explainNotFound(notFoundError(id));
  }

  history(id: string): Promise<HistoryEntry[]> {
    return this.run(async () => {
      validateJobId(id);
      const entries = await this.store.history(id);
      if (entries.length === 0 && !(await this.store.get(id))) throw this.notFound(id);
      return entries;
    });
  }

  /** Cancels a delayed, ready or reserved job; `dispatched` says whether it was out (reserved) at that moment. */
  cancel(id: string, reason?: string): Promise<CancelledJob> {
    return this.run(async () =>
      unwrap(await this.store.cancel(validateJobId(id), this.clock.now(), { reason }), id, 'cancel'),
    );
  }

  /** Moves a delayed (or ready) job to a new due time. */
  reschedule(
    id: string,
    when: { delayMs?: number | string; runAt?: number | string; timeZone?: string },
  ): Promise<Job> {
    return this.run(async () => {
      const now = this.clock.now();
      const probe = this.normalize({ topic: 'reschedule', ...pickTime(when) }, now);
      const job = unwrap(await this.store.reschedule(validateJobId(id), probe.runAt, now), id, 'reschedule');
      this.afterWrite([job]);
      return job;
    });
  }

  /** Makes a delayed job (waiting for its due time or for a retry) ready at once; its history records it. */
  runNow(id: string): Promise<Job> {
    return this.run(async () => {
      const outcome = await this.store.runNow(validateJobId(id), this.clock.now());
      if (!outcome.ok && outcome.reason === 'wrong_state') throw notDelayed(id, outcome.state);
      const job = unwrap(outcome, id, 'run now');
      this.afterWrite([job]);
      return job;
    });
  }

  /**
   * Reserves up to `count` ready jobs of `topics`. With `waitMs`, waits (long-poll) until a job is
   * ready or the time is up; `signal` aborts the wait (client gone). The caller must `release` what
   * it got if it cannot hand the jobs over.
   */
  reserve(request: ReserveRequest, signal?: AbortSignal, consumer?: WaitingConsumer): Promise<Reservation[]> {
    let waiting: TrackedConsumer | undefined;
    return this.run(async () => {
      const { topics, count, waitMs } = checkReserve(request);
      const startedAt = performance.now();
      const giveUpAt = startedAt + waitMs; // monotonic: immune to wall-clock steps
      const options: ReserveOptions = { ttrMs: request.ttrMs };
      for (;;) {
        const epoch = this.waiters.epoch;
        const now = this.clock.now();
        const open = topics.filter((t) => !this.pauses.isPaused(t, now));
        options.groupConcurrency = this.topicSettings.groupConcurrencyOf(open);
        options.pausedGroups = this.pauses.pausedGroupsOf(open, now);
        const reserved = open.length
          ? await this.rates.reserve(open, count, now, async (some, n) => {
              return (await this.store.reserve(some, n, now, options)).reservations;
            })
          : [];
        if (reserved.length) {
          let deadlineAt = reserved[0]!.deadlineAt;
          for (const r of reserved) deadlineAt = Math.min(deadlineAt, r.deadlineAt);
          this.timer.notifyDue(deadlineAt);
          return this.waited(waitMs, startedAt, reserved);
        }
        const left = giveUpAt - performance.now();
        if (left <= 0 || !this.state.isOpen || signal?.aborted) return this.waited(waitMs, startedAt, []);
        // Listed among the consumers while it waits (not when jobs were ready at once).
        if (consumer && !waiting)
          waiting = this.consumers.track({ kind: 'long-poll', topics, remote: consumer.remote });
        // A topic its rate limit refused is tried again when its next token comes, not before.
        const tokenInMs = this.rates.nextTokenInMs(open);
        const byToken = tokenInMs !== null && tokenInMs < left;
        const outcome = await this.waiters.wait(topics, byToken ? tokenInMs : left, signal, epoch);
        if (outcome === 'timeout' && byToken && this.state.isOpen) continue;
        if (outcome !== 'notified' || !this.state.isOpen) return this.waited(waitMs, startedAt, []);
      }
    }).finally(() => waiting?.end());
  }

  /** A reserve's answer; a long-poll (waitMs > 0) also reports how long it waited. */
  private waited(waitMs: number, startedAt: number, reserved: Reservation[]): Reservation[] {
    if (waitMs > 0)
      this.events.emit('reserveWait', { waitedMs: performance.now() - startedAt, count: reserved.length });
    return reserved;
  }

  /** Reserves one ready, delayed or dead job by id (Store.reserveJob), whatever its topic's pause. */
  reserveJob(id: string, options: { ttrMs?: number | undefined } = {}): Promise<Reservation> {
    return this.run(async () => {
      const reservation = unwrap(
        await this.store.reserveJob(validateJobId(id), this.clock.now(), { ttrMs: options.ttrMs }),
        id,
        'reserve',
      );
      this.timer.notifyDue(reservation.deadlineAt);
      return reservation;
    });
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

  redrive(target: RedriveTarget): Promise<number> {
    return this.run(async () => {
      if ('topic' in target) validateTopic(target.topic);
      else target.ids.forEach((id, i) => validateJobId(id, `ids[${i}]`));
      const count = await this.store.redrive(target, this.clock.now());
      if (count > 0) {
        const topics = 'topic' in target ? [target.topic] : await this.topicsOf(target.ids);
        this.waiters.notify(topics);
      }
      return count;
    });
  }

  private async topicsOf(ids: readonly string[]): Promise<string[]> {
    const jobs = await Promise.all(ids.map((id) => this.store.get(id)));
    return [...new Set(jobs.filter((j): j is Job => j !== null).map((j) => j.topic))];
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
