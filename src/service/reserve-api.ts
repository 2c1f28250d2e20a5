import type { Clock } from '../core/clock.js';
import { validateJobId } from '../core/job-input.js';
import type { Reservation } from '../core/job.js';
import type { ReserveOptions, Store } from '../store/store.js';
import { unwrap } from '../store/outcome-errors.js';
import type { DueTimer } from '../timer/due-timer.js';
import type { ReadyWaiters, WaitOutcome } from '../timer/ready-waiters.js';
import type { TopicPauseFollower } from '../timer/topic-pause-follower.js';
import type { TopicSettingsFollower } from '../timer/topic-settings-follower.js';
import type { ConsumerRegistry, TrackedConsumer } from './consumer-registry.js';
import type { DispatchRateGate } from './dispatch-rate-gate.js';
import type { ServiceEvents } from './service-events.js';
import { checkReserve, type ReserveRequest } from './service-options.js';

/** A long-poll's client, listed among the consumers (GET /v1/consumers) while its reserve waits. */
export interface WaitingConsumer {
  /** The client's address (`ip:port`). */
  remote: string | null;
}

export interface ReserveDeps {
  store: Store;
  clock: Clock;
  waiters: ReadyWaiters;
  pauses: TopicPauseFollower;
  topicSettings: TopicSettingsFollower;
  rates: DispatchRateGate;
  timer: DueTimer;
  consumers: ConsumerRegistry;
  events: ServiceEvents;
  isOpen: () => boolean;
  run: <T>(operation: () => Promise<T>) => Promise<T>;
}

/**
 * Handing jobs out: a reserve that waits (long-poll) until a job of its topics is ready, passing over paused
 * topics and groups, groups at their bound and topics out of dispatch tokens; a reserve of one job by id.
 */
export class ReserveApi {
  private readonly deps: ReserveDeps;
  /** Topics whose groups the last try passed over for want of a token → when (performance.now()) one comes. */
  private readonly groupTokenAt = new Map<string, number>();

  constructor(deps: ReserveDeps) {
    this.deps = deps;
  }

  /**
   * Reserves up to `count` ready jobs of `topics`. With `waitMs`, waits (long-poll) until a job is
   * ready or the time is up; `signal` aborts the wait (client gone). The caller must `release` what
   * it got if it cannot hand the jobs over.
   */
  reserve(request: ReserveRequest, signal?: AbortSignal, consumer?: WaitingConsumer): Promise<Reservation[]> {
    const { store, clock, waiters, pauses, topicSettings, rates, timer, consumers, isOpen } = this.deps;
    let waiting: TrackedConsumer | undefined;
    return this.deps
      .run(async () => {
        const { topics, count, waitMs } = checkReserve(request);
        const startedAt = performance.now();
        const giveUpAt = startedAt + waitMs; // monotonic: immune to wall-clock steps
        const options: ReserveOptions = { ttrMs: request.ttrMs };
        for (;;) {
          const epoch = waiters.epoch;
          const now = clock.now();
          const open = topics.filter((t) => !pauses.isPaused(t, now));
          options.groupConcurrency = topicSettings.groupConcurrencyOf(open);
          options.pausedGroups = pauses.pausedGroupsOf(open, now);
          options.groupRateLimits = topicSettings.groupRateLimitOf(open);
          /** When a group passed over for want of a token (groupRateLimit) has its next one. */
          let groupTokenInMs: number | undefined;
          const reserved = open.length
            ? await rates.reserve(open, count, now, async (some, n) => {
                const result = await store.reserve(some, n, now, options);
                if (result.groupTokenInMs !== undefined)
                  groupTokenInMs = Math.min(groupTokenInMs ?? Infinity, result.groupTokenInMs);
                return result.reservations;
              })
            : [];
          this.noteGroupTokens(options.groupRateLimits, groupTokenInMs);
          if (reserved.length) {
            let deadlineAt = reserved[0]!.deadlineAt;
            for (const r of reserved) deadlineAt = Math.min(deadlineAt, r.deadlineAt);
            timer.notifyDue(deadlineAt);
            return this.waited(waitMs, startedAt, reserved);
          }
          const left = giveUpAt - performance.now();
          if (left <= 0 || !isOpen() || signal?.aborted) return this.waited(waitMs, startedAt, []);
          // Listed among the consumers while it waits (not when jobs were ready at once).
          if (consumer && !waiting) waiting = consumers.track({ kind: 'long-poll', topics, remote: consumer.remote });
          // A topic (or a group) its rate limit refused is tried again when its next token comes, not before.
          const tokenInMs = this.soonest(rates.nextTokenInMs(open), groupTokenInMs ?? null);
          const byToken = tokenInMs !== null && tokenInMs < left;
          const outcome = await waiters.wait(topics, byToken ? tokenInMs : left, signal, epoch);
          if (outcome === 'timeout' && byToken && isOpen()) continue;
          if (outcome !== 'notified' || !isOpen()) return this.waited(waitMs, startedAt, []);
        }
      })
      .finally(() => waiting?.end());
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
    const { rates, waiters } = this.deps;
    // A topic (or a group) whose rate limit refused the last try: woken ('notified') when its next token comes.
    const tokenInMs = this.soonest(rates.nextTokenInMs(topics), this.groupTokenInMs(topics));
    if (tokenInMs === null || tokenInMs >= waitMs) return waiters.wait(topics, waitMs, signal, seenEpoch);
    const outcome = await waiters.wait(topics, tokenInMs, signal, seenEpoch);
    return outcome === 'timeout' ? 'notified' : outcome;
  }

  /** Reserves one ready, delayed or dead job by id (Store.reserveJob), whatever its topic's pause. */
  reserveJob(id: string, options: { ttrMs?: number | undefined } = {}): Promise<Reservation> {
    const { store, clock, timer } = this.deps;
    return this.deps.run(async () => {
      const reservation = unwrap(
        await store.reserveJob(validateJobId(id), clock.now(), { ttrMs: options.ttrMs }),
        id,
        'reserve',
      );
      timer.notifyDue(reservation.deadlineAt);
      return reservation;
    });
  }

  /** Remembers, for the rate-limited topics of a try, when a group it passed over for want of a token has one. */
  private noteGroupTokens(limited: ReadonlyMap<string, unknown> | undefined, tokenInMs: number | undefined): void {
    if (!limited) return;
    for (const topic of limited.keys())
      if (tokenInMs === undefined) this.groupTokenAt.delete(topic);
      else this.groupTokenAt.set(topic, performance.now() + tokenInMs);
  }

  /** Ms until a group of these topics, passed over by the last try for want of a token, has one; null: none was. */
  private groupTokenInMs(topics: readonly string[]): number | null {
    let soonest: number | null = null;
    for (const topic of topics) {
      const at = this.groupTokenAt.get(topic);
      if (at === undefined) continue;
      // A limit removed since: no token to wait for (a stale time would wake a waiting reserve again and again).
      if (this.deps.topicSettings.of(topic).groupRateLimit === undefined) {
        this.groupTokenAt.delete(topic);
        continue;
      }
      soonest = this.soonest(soonest, Math.max(0, at - performance.now()));
    }
    return soonest;
  }

  private soonest(a: number | null, b: number | null): number | null {
    return a === null ? b : b === null ? a : Math.min(a, b);
  }

  /** A reserve's answer; a long-poll (waitMs > 0) also reports how long it waited. */
  private waited(waitMs: number, startedAt: number, reserved: Reservation[]): Reservation[] {
    if (waitMs > 0)
      this.deps.events.emit('reserveWait', { waitedMs: performance.now() - startedAt, count: reserved.length });
    return reserved;
  }
}
