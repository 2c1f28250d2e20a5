import type { EpochMs } from '../core/clock.js';

/**
 * What a store tells its owner about itself beyond answers to calls: it came back empty (a Redis restart
 * without persistence, FLUSHALL, a failover to an empty replica), a failover lost writes it had acknowledged,
 * or it runs in a setup that can lose jobs. The service logs them all and counts resets and write losses
 * (delayq_store_resets_total, delayq_store_write_losses_total, `storeResets` and `storeWriteLosses` in /ready).
 */
export interface StoreNoticeListener {
  onReset(reset: StoreReset): void;
  onWriteLoss(loss: StoreWriteLoss): void;
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

/**
 * A failover promoted a replica that lacked writes its old master had acknowledged (Redis replicates
 * asynchronously): the jobs those writes made, finished or cancelled are lost or back as they were.
 */
export interface StoreWriteLoss {
  /** When this process noticed it (the store's clock). */
  at: EpochMs;
  /** The shard that failed over: the new master's address. */
  shard: string;
  /** Bytes of the old master's replication stream past what the new master had when promoted. */
  lostBytes: number;
  /** Writes acknowledged since this time may be lost; earlier ones were replicated. */
  since: EpochMs;
  /** At most this many of this process's writes (script calls on any shard) are among the lost ones. */
  writesAtMost: number;
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

  onWriteLoss(loss: StoreWriteLoss): void {
    for (const l of this.listeners) l.onWriteLoss(loss);
  }

  onWarning(warning: StoreWarning): void {
    for (const l of this.listeners) l.onWarning(warning);
  }
}
