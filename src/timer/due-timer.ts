import type { Clock, EpochMs, TimerHandle } from '../core/clock.js';
import { earliestWake, type Store, type WakeTimes } from '../store/store.js';
import { DEFAULTS } from '../config.js';
import { reapLapsed } from './reaper.js';

export interface DueTimerOptions {
  /** Jobs moved per store call when promoting, reaping or expiring. */
  batchSize: number;
  /**
   * Longest sleep even when nothing is due: a safety net for wake-ups that were missed (another
   * process's push on a shared store whose notification was lost).
   */
  safetyWakeMs: number;
  /** Terminal jobs are purged this long after they ended. */
  retentionMs: number;
  /** How often the purge of old terminal jobs runs. */
  purgeIntervalMs: number;
  /** How often ended jobs with a retention of their own (Store.purgeRetained) are looked for. @defaultValue 1000 ms */
  retainedPurgeIntervalMs: number;
}

/** config.ts's `scheduler` defaults (the config section keeps its first name). */
export const DEFAULT_DUE_TIMER_OPTIONS: DueTimerOptions = DEFAULTS.scheduler;

export interface DueTimerHooks {
  /** Jobs of these topics just became ready: wake their waiting consumers. */
  onReady(topics: readonly string[]): void;
  /** A tick failed (store unreachable…); the timer backs off and tries again. */
  onError(err: unknown): void;
}

/**
 * The timer. It sleeps until the earliest due time, TTR deadline or ttl expiry the store reports
 * (capped by the safety wake-up), is woken early by `notifyDue` when an earlier job arrives, and never
 * polls on a fixed tick. Each wake-up promotes due jobs in batches, reaps lapsed reservations, expires
 * stale ready jobs and now and then purges old terminal jobs.
 */
export class DueTimer {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly hooks: DueTimerHooks;
  private readonly options: DueTimerOptions;
  private timer: TimerHandle | undefined;
  private wakeAt: EpochMs = Number.POSITIVE_INFINITY;
  private running: Promise<void> | undefined;
  private rerun = false;
  private rerunAt = Number.POSITIVE_INFINITY;
  private stopped = true;
  private lastPurgeAt = 0;
  private lastRetainedPurgeAt = 0;
  private failures = 0;

  constructor(store: Store, clock: Clock, hooks: DueTimerHooks, options: Partial<DueTimerOptions> = {}) {
    this.store = store;
    this.clock = clock;
    this.hooks = hooks;
    this.options = { ...DEFAULT_DUE_TIMER_OPTIONS, ...options };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.lastPurgeAt = this.clock.now();
    this.wakeNow();
  }

  /** A job is due at `at`: wake earlier than planned if need be. */
  notifyDue(at: EpochMs): void {
    if (this.stopped) return;
    if (this.running) {
      if (at <= this.clock.now()) this.rerun = true;
      else this.rerunAt = Math.min(this.rerunAt, at);
      return;
    }
    if (at < this.wakeAt) this.arm(at);
  }

  /** Resolves when no tick is running (tests on a fake clock await this after advancing it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.settled();
  }

  /** Runs a tick now (or right after the current one). */
  wakeNow(): void {
    if (this.stopped) return;
    if (this.running) {
      this.rerun = true;
      return;
    }
    this.timer?.cancel();
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    this.running = this.tick().finally(() => {
      this.running = undefined;
    });
  }

  private arm(at: EpochMs): void {
    this.timer?.cancel();
    this.wakeAt = at;
    this.timer = this.clock.setTimer(() => this.wakeNow(), at - this.clock.now());
  }

  /** One wake-up; loops while pushes during the run asked for an immediate re-run, then re-arms the timer. */
  private async tick(): Promise<void> {
    for (;;) {
      this.rerun = false;
      let next: EpochMs;
      try {
        const known = await this.runDueWork();
        const due = known === undefined ? await this.store.nextWakeAt() : known;
        const safety = this.clock.now() + this.options.safetyWakeMs;
        next = Math.min(due ?? safety, safety);
        this.failures = 0;
      } catch (err) {
        this.failures++;
        this.hooks.onError(err);
        // Back off on failure, doubling up to the safety interval.
        next = this.clock.now() + Math.min(this.options.safetyWakeMs, 50 * 2 ** Math.min(this.failures, 10));
      }
      if (this.stopped) return;
      if (this.rerun) continue;
      next = Math.min(next, this.rerunAt);
      this.rerunAt = Number.POSITIVE_INFINITY;
      this.arm(next);
      return;
    }
  }

  /**
   * Promotes, reaps, expires and now and then purges. Answers the next wake-up time when the promote
   * call's wake times still hold (nothing else ran since); undefined: ask the store (nextWakeAt).
   */
  private async runDueWork(): Promise<EpochMs | null | undefined> {
    const { batchSize } = this.options;
    const now = this.clock.now();
    let next: WakeTimes;
    for (;;) {
      const promoted = await this.store.promoteDue(now, batchSize);
      if (promoted.topics.length) this.hooks.onReady(promoted.topics);
      next = promoted.next;
      // A restart after a long stop may find a large backlog due: a stop ends the catch-up between batches.
      if (promoted.count < batchSize || this.stopped) break;
    }
    const due = (at: EpochMs | null): boolean => at !== null && at <= now;
    let exact = true;
    if (due(next.deadlineAt)) {
      exact = false;
      for (;;) {
        const reaped = await reapLapsed(this.store, now, batchSize);
        if (reaped.readyTopics.length) this.hooks.onReady(reaped.readyTopics);
        if (reaped.lapsed < batchSize || this.stopped) break;
      }
    }
    if (due(next.expireAt)) {
      exact = false;
      while ((await this.store.expireDue(now, batchSize)).length === batchSize && !this.stopped) {
        /* keep expiring */
      }
    }
    if (now - this.lastPurgeAt >= this.options.purgeIntervalMs) {
      this.lastPurgeAt = now;
      while ((await this.store.purge(now - this.options.retentionMs, batchSize)) === batchSize && !this.stopped) {
        /* keep purging */
      }
    }
    if (now - this.lastRetainedPurgeAt >= this.options.retainedPurgeIntervalMs) {
      this.lastRetainedPurgeAt = now;
      while ((await this.store.purgeRetained(now, batchSize)).length === batchSize && !this.stopped) {
        /* keep purging */
      }
    }
    if (!exact) return undefined;
    return earliestWake(next);
  }
}
