import { hostname } from 'node:os';
import { pino, type Logger } from 'pino';
import { systemClock, type Clock, type EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import { defaultNodeId, newJobId } from '../core/ids.js';
import { DEFAULT_JOB_DEFAULTS } from '../config.js';
import { normalizePush, validateJobId, validateTopic, type JobDefaults, type PushInput } from '../core/job-input.js';
import type { HistoryEntry, Job, NewJob, Reservation } from '../core/job.js';
import type { FailureDecision } from '../core/retry-policy.js';
import { isJournaled } from '../journal/journal.js';
import { JournalLoader } from '../scheduler/loader.js';
import { PausedTopics } from '../scheduler/paused-topics.js';
import { ReadyWaiters, type WaitOutcome } from '../scheduler/ready-waiters.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { ServiceEvents } from './service-events.js';
import { observeStore } from '../observe/observed-store.js';
import { JobEventFeed } from './job-event-feed.js';
import { StoreNoticeLog } from './store-notice-log.js';
import { notFoundError, unwrap } from '../store/outcome-errors.js';
import {
  type CancelledJob,
  type FinishItem,
  type JobPage,
  type JobQuery,
  type PushResult,
  type RedriveTarget,
  type Store,
} from '../store/store.js';
import { JobApi } from './job-api.js';
import { JournalApi } from './journal-api.js';
import { SettleApi, type ReleaseOptions } from './settle-api.js';
import { ServiceState } from './service-state.js';
import { TopicApi } from './topic-api.js';
import {
  checkReserve,
  pickTime,
  type FailRequest,
  type ReserveRequest,
  type ServiceOptions,
} from './service-options.js';

export type { FailRequest, ReserveRequest, ServiceOptions } from './service-options.js';

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
  private readonly scheduler: Scheduler;
  private readonly loader: JournalLoader | undefined;
  private readonly waiters = new ReadyWaiters();
  readonly paused: PausedTopics;
  private readonly runScheduler: boolean;
  private readonly state = new ServiceState();
  /** The store's notices: resets (came back empty) logged at error level and counted, setup warnings. */
  readonly storeNotices: StoreNoticeLog;
  /** Results, retention, bulk operations and listings (issue 23; job-api.ts). */
  readonly jobApi: JobApi;
  /** Counts per topic, pause and resume, the next job of a topic, the due histogram (topic-api.ts). */
  readonly topics: TopicApi;
  /** Restore, restore one job, clear-all and status, when a SQL journal backs the store (journal-api.ts). */
  readonly journal: JournalApi;
  /** Ended and failed jobs for followers (SSE, SDK iterator; job-event-feed.ts). */
  readonly jobEvents: JobEventFeed;
  /** touch, finish, fail and release: settling a reservation (settle-api.ts). */
  private readonly settling: SettleApi;

  constructor(options: ServiceOptions) {
    // A shared store's clock wins over the local one: processes on one Redis agree on time.
    this.clock = options.clock ?? options.store.clock ?? systemClock;
    this.store = observeStore(options.store, this.events, this.clock);
    this.nodeId = options.nodeId ?? defaultNodeId(hostname(), process.pid);
    this.logger = options.logger ?? pino({ level: 'silent' });
    this.defaults = { ...DEFAULT_JOB_DEFAULTS, ...options.jobDefaults };
    this.runScheduler = options.runScheduler ?? true;
    this.storeNotices = new StoreNoticeLog(this.logger);
    this.jobEvents = new JobEventFeed(this.events, this.store.jobEvents);
    this.store.notices(this.storeNotices); // before open: open-time notices count too
    this.scheduler = new Scheduler(
      this.store,
      this.clock,
      {
        onReady: (topics) => this.waiters.notify(topics),
        onError: (err) =>
          this.logger.error({ err, code: (err as DelayqError).code }, 'scheduler tick failed; retrying'),
      },
      options.scheduler,
    );
    this.paused = new PausedTopics(this.store.pauses, this.clock, (topics) => this.waiters.notify(topics), this.logger);
    const journaled = isJournaled(this.store) ? this.store : undefined;
    this.journal = new JournalApi(journaled);
    this.loader = journaled
      ? new JournalLoader(
          journaled,
          this.clock,
          {
            onLoaded: () => this.scheduler.wakeNow(),
            onError: (err) =>
              this.logger.error({ err, code: (err as DelayqError).code }, 'journal loader round failed; retrying'),
          },
          options.loader,
        )
      : undefined;
    const run = <T>(operation: () => Promise<T>): Promise<T> => this.state.run(operation);
    this.topics = new TopicApi({ store: this.store, paused: this.paused, now: () => this.clock.now(), run });
    this.jobApi = new JobApi(
      {
        store: this.store,
        now: () => this.clock.now(),
        run,
        pushBatch: (inputs) => this.pushBatch(inputs),
        moved: (topics, dueAt) => {
          if (topics.length) this.waiters.notify(topics);
          else this.waiters.notifyAll();
          if (dueAt !== null) this.scheduler.notifyDue(dueAt);
        },
      },
      options.retentionByTopic,
    );
    this.settling = new SettleApi({
      store: this.store,
      clock: this.clock,
      jobApi: this.jobApi,
      jobEvents: this.jobEvents,
      run,
      afterWrite: (jobs) => this.afterWrite(jobs),
    });
  }

  async start(): Promise<void> {
    if (this.state.phase !== 'new') return;
    await this.store.open();
    this.jobEvents.start();
    await this.paused.start();
    if (this.store.capabilities.shared) {
      this.store.watch({
        onReady: (topics) => this.waiters.notify(topics),
        onDue: (at) => this.scheduler.notifyDue(at),
      });
    }
    if (this.runScheduler) {
      this.scheduler.start();
      this.loader?.start();
    }
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
  waitReady(topics: readonly string[], waitMs: number, signal?: AbortSignal, seenEpoch?: number): Promise<WaitOutcome> {
    return this.waiters.wait(topics, waitMs, signal, seenEpoch);
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
    this.paused.stop();
    await this.scheduler.stop();
    this.jobEvents.stop();
    await this.store.close();
    this.state.closed();
  }

  /** Every public operation runs through here: refused unless open, tracked for graceful close. */
  private run<T>(operation: () => Promise<T>): Promise<T> {
    return this.state.run(operation);
  }

  /** Validates a push without storing it (the HTTP layer uses it to name bad fields in a batch). */
  normalize(input: PushInput, now: EpochMs = this.clock.now()): NewJob {
    return normalizePush(input, { now, defaults: this.defaults, newId: newJobId });
  }

  push(input: PushInput): Promise<PushResult> {
    return this.pushBatch([input]).then((results) => results[0]!);
  }

  /** Validates every job first (an error names `jobs[i].field`), then stores them all in one call. */
  pushBatch(inputs: readonly PushInput[]): Promise<PushResult[]> {
    return this.run(async () => {
      const now = this.clock.now();
      const jobs = inputs.map((input, index) => {
        try {
          return this.normalize(input, now);
        } catch (err) {
          if (err instanceof DelayqError && inputs.length > 1 && err.field !== undefined) {
            throw new DelayqError(err.code, `jobs[${index}].${err.message}`, { field: `jobs[${index}].${err.field}` });
          }
          throw err;
        }
      });
      const results = await this.store.pushMany(jobs, now);
      this.afterWrite(results.filter((r) => r.created).map((r) => r.job));
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
    if (earliest !== Number.POSITIVE_INFINITY) this.scheduler.notifyDue(earliest);
  }

  get(id: string): Promise<Job> {
    return this.run(async () => {
      const job = await this.store.get(validateJobId(id));
      if (!job) throw this.storeNotices.explainNotFound(notFoundError(id));
      return job;
    });
  }

  history(id: string): Promise<HistoryEntry[]> {
    return this.run(async () => {
      validateJobId(id);
      const entries = await this.store.history(id);
      if (entries.length === 0 && !(await this.store.get(id)))
        throw this.storeNotices.explainNotFound(notFoundError(id));
      return entries;
    });
  }

  /** Cancels a delayed, ready or reserved job; `dispatched` says whether it was out (reserved) at that moment. */
  cancel(id: string, reason?: string): Promise<CancelledJob> {
    return this.run(async () =>
      unwrap(await this.store.cancel(validateJobId(id), this.clock.now(), reason), id, 'cancel'),
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

  /**
   * Reserves up to `count` ready jobs of `topics`. With `waitMs`, waits (long-poll) until a job is
   * ready or the time is up; `signal` aborts the wait (client gone). The caller must `release` what
   * it got if it cannot hand the jobs over.
   */
  reserve(request: ReserveRequest, signal?: AbortSignal): Promise<Reservation[]> {
    return this.run(async () => {
      const { topics, count, waitMs } = checkReserve(request);
      const startedAt = performance.now();
      const giveUpAt = startedAt + waitMs; // monotonic: immune to wall-clock steps
      const options = { ttrMs: request.ttrMs };
      for (;;) {
        const epoch = this.waiters.epoch;
        const now = this.clock.now();
        const open = topics.filter((t) => !this.paused.isPaused(t, now));
        const reserved = open.length ? (await this.store.reserve(open, count, now, options)).reservations : [];
        if (reserved.length) {
          let deadlineAt = reserved[0]!.deadlineAt;
          for (const r of reserved) deadlineAt = Math.min(deadlineAt, r.deadlineAt);
          this.scheduler.notifyDue(deadlineAt);
          return this.waited(waitMs, startedAt, reserved);
        }
        const left = giveUpAt - performance.now();
        if (left <= 0 || !this.state.isOpen || signal?.aborted) return this.waited(waitMs, startedAt, []);
        const outcome = await this.waiters.wait(topics, left, signal, epoch);
        if (outcome !== 'notified' || !this.state.isOpen) return this.waited(waitMs, startedAt, []);
      }
    });
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
      this.scheduler.notifyDue(reservation.deadlineAt);
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

  list(query: JobQuery): Promise<JobPage> {
    return this.run(() => this.store.list(query));
  }

  /** Deletes terminal jobs that ended before `before` (the scheduler also does this on its own). */
  purge(before: EpochMs, limit = 10_000): Promise<number> {
    return this.run(() => this.store.purge(before, limit));
  }
}
