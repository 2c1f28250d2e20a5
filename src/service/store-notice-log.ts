import type { Logger } from 'pino';
import { DelayqError } from '../core/errors.js';
import type { EpochMs } from '../core/clock.js';
import type { StoreNoticeListener, StoreReset, StoreWarning } from '../store/store-notices.js';

/**
 * The service's side of the store's notices: a reset (the store came back empty) is logged at error level
 * and counted (delayq_store_resets_total, `storeResets` in /ready and /v1/stats: resets this process
 * noticed since it started); a risky setup is logged at its level.
 */
export class StoreNoticeLog implements StoreNoticeListener {
  private readonly logger: Logger;
  private count = 0;
  private lastAt: EpochMs | null = null;

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
