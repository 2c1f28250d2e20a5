import type { Clock, TimerHandle } from '../core/clock.js';
import type { JournalMaintenance } from '../journal/journal.js';

export interface LoaderOptions {
  /** Time between two rounds. Keep it well under the journal's horizon. @defaultValue 1000 ms */
  intervalMs: number;
  /** Jobs loaded (or purged) per store call. @defaultValue 5000 */
  batchSize: number;
}

export const DEFAULT_LOADER_OPTIONS: LoaderOptions = { intervalMs: 1000, batchSize: 5000 };

export interface LoaderHooks {
  /** Jobs were loaded into the inner store: the timer may need to wake earlier. */
  onLoaded?(count: number): void;
  onError(err: unknown): void;
}

export interface LoaderRound {
  check: Awaited<ReturnType<JournalMaintenance['checkInner']>>;
  loaded: number;
  /** Journal rows brought in line with the inner store this round (ended there, or pushed back). */
  reconciled: number;
  purged: number;
}

/**
 * The journal's background service (delay-task's "load the next N minutes"): each round checks that the
 * inner store still has its data (restoring if not), loads journal-only jobs entering the horizon, runs one
 * reconciliation pass, and purges terminal jobs from the inner store. Several processes may run it: the journal's claim
 * (FOR UPDATE SKIP LOCKED) keeps them from loading the same rows.
 */
export class JournalLoader {
  private readonly target: JournalMaintenance;
  private readonly clock: Clock;
  private readonly hooks: LoaderHooks;
  private readonly options: LoaderOptions;
  private timer: TimerHandle | undefined;
  private running: Promise<LoaderRound | undefined> | undefined;
  private stopped = true;

  constructor(target: JournalMaintenance, clock: Clock, hooks: LoaderHooks, options: Partial<LoaderOptions> = {}) {
    this.target = target;
    this.clock = clock;
    this.hooks = hooks;
    this.options = { ...DEFAULT_LOADER_OPTIONS, ...options };
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.arm(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.settled();
  }

  /** Resolves when no round is running (tests on a fake clock await this after advancing it). */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  /** One round now; rounds never overlap. */
  round(): Promise<LoaderRound | undefined> {
    this.running ??= this.runRound().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private arm(delayMs: number): void {
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      void this.round().finally(() => {
        if (!this.stopped) this.arm(this.options.intervalMs);
      });
    }, delayMs);
  }

  private async runRound(): Promise<LoaderRound | undefined> {
    const { batchSize } = this.options;
    try {
      const now = this.clock.now();
      const check = await this.target.checkInner(now);
      let loaded = 0;
      for (;;) {
        const n = await this.target.loadDue(now, batchSize);
        loaded += n;
        if (n < batchSize || this.stopped) break;
      }
      // One bounded reconciliation pass; its complete cycles are what lets the purge below remove ended jobs.
      const pass = await this.target.reconcile(now);
      const reconciled = pass ? pass.ended + pass.repushed : 0;
      if (loaded || check === 'restored' || pass?.repushed) this.hooks.onLoaded?.(loaded);
      let purged = 0;
      for (;;) {
        const n = await this.target.purgeInner(now, batchSize);
        purged += n;
        if (n < batchSize || this.stopped) break;
      }
      return { check, loaded, reconciled, purged };
    } catch (err) {
      this.hooks.onError(err);
      return undefined;
    }
  }
}
