import type { EpochMs } from '../core/clock.js';

/**
 * What a store tells its owner about itself beyond answers to calls: it came back empty (a Redis restart
 * without persistence, FLUSHALL, a failover to an empty replica), or it runs in a setup that can lose jobs.
 * The service logs both and counts resets (delayq_store_resets_total, `storeResets` in /ready and /v1/stats).
 */
export interface StoreNoticeListener {
  onReset(reset: StoreReset): void;
  onWarning(warning: StoreWarning): void;
}

export interface StoreReset {
  /** When this process noticed it (the store's clock). */
  at: EpochMs;
  /** The parts found empty (Redis: partition numbers, one Cluster slot each); every part when all are. */
  parts: number[];
  /** How many parts the store has. */
  of: number;
}

export interface StoreWarning {
  /** `warn`: the setup is known to lose data; `info`: the store could not tell (e.g. CONFIG refused). */
  level: 'warn' | 'info';
  message: string;
  details?: Record<string, unknown>;
}

/** Several listeners behind one: each notice goes to every listener added so far. */
export class NoticeFanout implements StoreNoticeListener {
  private readonly listeners: StoreNoticeListener[] = [];

  add(listener: StoreNoticeListener): void {
    this.listeners.push(listener);
  }

  onReset(reset: StoreReset): void {
    for (const l of this.listeners) l.onReset(reset);
  }

  onWarning(warning: StoreWarning): void {
    for (const l of this.listeners) l.onWarning(warning);
  }
}
