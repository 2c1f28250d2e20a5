/**
 * Settling a reservation on the service: touch, finish (one or a batch), fail and release. Every call is fenced
 * by the reservation token in the store; a finish's result or a fail's error is noted for the job's event before
 * the store call and forgotten when it refuses. DelayqService keeps the public methods and delegates here.
 */
import type { Clock, EpochMs } from '../core/clock.js';
import { isDelayqError, settled, type DelayqError } from '../core/errors.js';
import { delayIn, validateJobId, validatePriority } from '../core/job-input.js';
import type { Job } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import { decideFailure, type FailureDecision } from '../core/retry-policy.js';
import { notFoundError, unwrap } from '../store/outcome-errors.js';
import type { FinishItem, Outcome, Store } from '../store/store.js';
import type { JobOutcomes } from './job-outcomes.js';
import type { JobEventFeed } from './job-event-feed.js';
import type { FailRequest } from './service-options.js';
import { TurnBatch } from './turn-batch.js';

/** What settling needs of DelayqService. */
export interface SettleHost {
  readonly store: Store;
  readonly clock: Clock;
  readonly outcomes: JobOutcomes;
  readonly jobEvents: JobEventFeed;
  /** The service's guard: refused while closing, tracked for graceful close. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  /** Tells the timer and the waiters about jobs that were just moved. */
  afterWrite(jobs: readonly Job[]): void;
}

/** How a reservation is given back (DelayqService.release). */
export interface ReleaseOptions {
  /** Ready after this long (as push's delayMs); absent: ready at once in its old place. */
  delayMs?: number | string | undefined;
  /** The job's priority from now on. */
  priority?: number | undefined;
  /**
   * The history entry's reason, for a caller that gives jobs back for a reason of its own (a client gone); cut
   * at LIMITS.errorMaxLength characters, as a fail's error is.
   */
  reason?: string | undefined;
}

/** One finish waiting for the others of its event-loop turn. */
interface QueuedFinish extends FinishItem {
  now: EpochMs;
}

export class SettleApi {
  private readonly host: SettleHost;
  /** Single finishes (one per request), one store finishMany per event-loop turn (turn-batch.ts). */
  private readonly finishes: TurnBatch<QueuedFinish, Outcome<Job>>;

  constructor(host: SettleHost) {
    this.host = host;
    this.finishes = new TurnBatch((items) => {
      // The latest of the group's times, as for grouped pushes (single-pushes.ts).
      let now = items[0]!.now;
      for (const item of items) now = Math.max(now, item.now);
      return host.store.finishMany(
        items.map(({ id, token }) => ({ id, token })),
        now,
      );
    }, LIMITS.ackBatchMax);
  }

  touch(id: string, token: string, ttrMs?: number): Promise<Job> {
    const { store, clock } = this.host;
    return this.host.run(async () =>
      unwrap(await store.touch(validateJobId(id), token, clock.now(), ttrMs), id, 'touch'),
    );
  }

  /** One reservation's finish, stored with the other single finishes of this turn; its own answer or refusal. */
  finish(id: string, token: string, result?: unknown): Promise<Job> {
    const { clock, outcomes, jobEvents } = this.host;
    return this.host.run(async () => {
      validateJobId(id);
      if (result !== undefined)
        jobEvents.note(id, { result: await outcomes.recordResult(id, token, result), error: null });
      try {
        return unwrap(await this.finishes.add({ id, token, now: clock.now() }), id, 'finish');
      } finally {
        jobEvents.forget(id);
      }
    });
  }

  /** Finishes a batch, each item with its own answer; an item's result is recorded first (a refused one refuses it). */
  finishMany(items: readonly (FinishItem & { result?: unknown })[]): Promise<(Job | DelayqError)[]> {
    const { store, clock, outcomes, jobEvents } = this.host;
    return this.host.run(async () => {
      const checked = await Promise.all(
        items.map(async ({ id, token, result }) => {
          const valid = settled(() => validateJobId(id));
          if (typeof valid !== 'string' || result === undefined) return valid;
          try {
            jobEvents.note(id, { result: await outcomes.recordResult(id, token, result), error: null });
            return valid;
          } catch (err) {
            if (isDelayqError(err)) return err;
            throw err;
          }
        }),
      );
      const valid = items.filter((_, i) => typeof checked[i] === 'string').map(({ id, token }) => ({ id, token }));
      try {
        const outcomes = await store.finishMany(valid, clock.now());
        let k = 0;
        return checked.map((c) => (typeof c === 'string' ? settled(() => unwrap(outcomes[k++]!, c, 'finish')) : c));
      } finally {
        for (const { id } of valid) jobEvents.forget(id);
      }
    });
  }

  fail(id: string, token: string, request: FailRequest = {}): Promise<{ job: Job; decision: FailureDecision }> {
    const { store, clock, outcomes, jobEvents } = this.host;
    return this.host.run(async () => {
      validateJobId(id);
      const current = await store.get(id);
      if (!current) throw notFoundError(id);
      const now = clock.now();
      const priority = request.priority === undefined ? undefined : validatePriority(request.priority);
      const decision = decideFailure(current.retry, current.attempts, now, request);
      const error = await outcomes.recordError(id, token, request.error);
      if (error !== null) jobEvents.note(id, { result: null, error });
      let outcome;
      try {
        outcome =
          decision.action === 'retry'
            ? await store.retry(id, token, now, { runAt: decision.runAt, error: error?.message ?? null })
            : await store.bury(id, token, now, { error: error?.message ?? null, priority });
      } finally {
        jobEvents.forget(id);
      }
      const job = unwrap(outcome, id, 'fail');
      this.host.afterWrite([job]);
      return { job, decision };
    });
  }

  release(id: string, token: string, options: ReleaseOptions = {}): Promise<Job> {
    const { store, clock } = this.host;
    return this.host.run(async () => {
      const now = clock.now();
      const runAt = options.delayMs === undefined ? undefined : now + delayIn(options.delayMs, 'delayMs');
      const priority = options.priority === undefined ? undefined : validatePriority(options.priority);
      const reason = options.reason?.slice(0, LIMITS.errorMaxLength);
      const job = unwrap(await store.release(id, token, now, { runAt, priority, reason }), id, 'release');
      this.host.afterWrite([job]);
      return job;
    });
  }
}
