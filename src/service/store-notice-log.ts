import type { Logger } from 'pino';
import { DelayqError } from '../core/errors.js';
import type { EpochMs } from '../core/clock.js';
import type { StoreNoticeListener, StoreReset, StoreWarning, StoreWriteLoss } from '../store/store-notices.js';

/** After a failover lost acknowledged writes, /ready says `degraded` this long: long enough to be seen, not forever. */
export const WRITE_LOSS_DEGRADED_MS = 10 * 60_000;

/**
 * The service's side of the store's notices: a reset (the store came back empty) is logged at error level
 * and counted (delayq_store_resets_total, `storeResets` in /ready and /v1/stats: resets this process
 * noticed since it started); so is a failover that lost acknowledged writes (delayq_store_write_losses_total,
 * `storeWriteLosses` in /ready, degraded for WRITE_LOSS_DEGRADED_MS); a risky setup is logged at its level.
 */
export class StoreNoticeLog implements StoreNoticeListener {
  private readonly logger: Logger;
  private count = 0;
  private lastAt: EpochMs | null = null;
  private losses = 0;
  private lastLoss: StoreWriteLoss | null = null;

  constructor(logger: Logger) {
    this.logger = logger;
  }

  get resets(): number {
    return this.count;
  }

  get lastResetAt(): EpochMs | null {
    return this.lastAt;
  }

  onReset(reset: StoreReset): void {
    this.count++;
    this.lastAt = reset.at;
    const whole = reset.parts.length === reset.of;
    this.logger.error(
      {
        storeReset: { at: new Date(reset.at).toISOString(), parts: reset.parts, of: reset.of },
        storeResets: this.count,
      },
      `THE STORE CAME BACK EMPTY (${whole ? 'all' : `${reset.parts.length} of ${reset.of}`} partitions lost their data): ` +
        'the jobs it held are gone unless a SQL journal restores them. Give Redis persistence (AOF) or a journal.',
    );
  }

  get writeLosses(): number {
    return this.losses;
  }

  get lastWriteLoss(): StoreWriteLoss | null {
    return this.lastLoss;
  }

  onWriteLoss(loss: StoreWriteLoss): void {
    this.losses++;
    this.lastLoss = loss;
    const since = new Date(loss.since).toISOString();
    this.logger.error(
      { storeWriteLoss: { ...loss, at: new Date(loss.at).toISOString(), since }, storeWriteLosses: this.losses },
      `A FAILOVER LOST ACKNOWLEDGED WRITES on shard ${loss.shard}: the new master lacks ${loss.lostBytes} bytes of ` +
        `the old one's replication stream, written since ${since} (at most ${loss.writesAtMost} writes of this ` +
        'process): jobs pushed then are gone, finishes and cancels undone, unless a SQL journal puts them back.',
    );
  }

  /** Why /ready answers `degraded`: a write loss noticed within WRITE_LOSS_DEGRADED_MS of `now`, else null. */
  degradedReason(now: EpochMs): string | null {
    const loss = this.lastLoss;
    if (!loss || now - loss.at > WRITE_LOSS_DEGRADED_MS) return null;
    return (
      `a failover of ${loss.shard} at ${new Date(loss.at).toISOString()} lost writes acknowledged since ` +
      `${new Date(loss.since).toISOString()} (at most ${loss.writesAtMost} of this process)`
    );
  }

  /** A job that cannot be found may be one the store lost: after a reset, the 404 says so. */
  explainNotFound(error: DelayqError): DelayqError {
    if (this.lastAt === null) return error;
    const at = new Date(this.lastAt).toISOString();
    return new DelayqError(error.code, `${error.message}, or was lost when the store came back empty at ${at}`, {
      details: { ...error.details, storeResets: this.count, lastStoreResetAt: this.lastAt },
    });
  }

  onWarning(warning: StoreWarning): void {
    this.logger[warning.level]({ ...warning.details }, warning.message);
  }
}
