import type { Logger } from 'pino';
import type { Clock, EpochMs } from '../../core/clock.js';
import type { StoreNoticeListener } from '../../store/store-notices.js';
import { InnerMonitor, type InnerCheck, type JournalStatus, type RestoreMode } from './inner-monitor.js';
import { JournalReconciler, type ReconcileSummary } from './reconciler.js';
import {
  clearAllJobs,
  restoreFromJournal,
  restoreJob,
  type ClearAllOptions,
  type ClearAllSummary,
  type RestoreContext,
  type RestoreOptions,
  type RestoreSummary,
} from './restore.js';

export interface JournalRecoveryOptions {
  clock: Clock;
  logger: Logger;
  restoreMode: RestoreMode;
  /** Terminal jobs leave the inner store this long after they ended (the journal keeps them). */
  innerRetentionMs: number;
  reconcileBatchSize: number;
  reconcileSettleMs: number;
}

/**
 * How a journaled store keeps its inner store in line with the journal (docs/journal.md): it notices the
 * inner store's loss (inner-monitor.ts) and restores it (restore.ts), brings journal rows in line with it
 * (reconciler.ts), and purges ended jobs only below the reconciliation's watermark. JournaledStore's
 * maintenance and operations (journal.ts) delegate here, but for loading and observing commits.
 */
export class JournalRecovery {
  private readonly ctx: RestoreContext;
  private readonly clock: Clock;
  private readonly innerRetentionMs: number;
  private readonly monitor: InnerMonitor;
  private readonly reconciler: JournalReconciler;
  private readonly restoreSteps: ((now: EpochMs) => Promise<void>)[] = [];

  constructor(ctx: RestoreContext, options: JournalRecoveryOptions) {
    this.ctx = ctx;
    this.clock = options.clock;
    this.innerRetentionMs = options.innerRetentionMs;
    this.monitor = new InnerMonitor(
      ctx.inner,
      ctx.journal,
      options.restoreMode,
      options.logger,
      (now) => this.restore({ expire: true }, now),
      () => this.reconciler.expedite(),
    );
    this.reconciler = new JournalReconciler(
      { ...ctx, batchSize: options.reconcileBatchSize },
      options.reconcileSettleMs,
    );
  }

  /** Waits for a marker check (and the restore it started) under way, before the store closes. */
  settled(): Promise<void> {
    return this.monitor.settled();
  }

  async purge(before: EpochMs, limit: number): Promise<number> {
    // Without the loader's pass just before it: one pass of its own, so a cycle can complete.
    if (((await this.reconciler.purgeBefore(before)) ?? -1) < before) await this.reconcile(this.clock.now());
    const [inner, journal] = await Promise.all([
      this.reconciler.purgeInner(before, limit),
      this.ctx.journal.purge(before, limit),
    ]);
    return Math.max(inner, journal);
  }

  /** Terminal jobs leave the inner store soon after they end; the journal keeps them for the retention. */
  purgeInner(now: EpochMs, limit: number): Promise<number> {
    return this.reconciler.purgeInner(now - this.innerRetentionMs, limit);
  }

  /** One reconciliation pass (docs/journal.md): journal rows brought in line with the inner store. Not while it is lost. */
  reconcile(now: EpochMs): Promise<ReconcileSummary | null> {
    return this.monitor.status(0).inner === 'ok' ? this.reconciler.pass(now) : Promise.resolve(null);
  }

  /** Checks the inner store's marker; restores (auto) or reports (manual) when it is gone. */
  checkInner(now: EpochMs): Promise<InnerCheck> {
    return this.monitor.check(now);
  }

  /** The inner store's notices (resets, risky setup); a reset also triggers the marker check, so the restore. */
  notices(listener: StoreNoticeListener): void {
    this.monitor.forwardNotices(listener, () => this.clock.now());
  }

  status(): JournalStatus {
    return this.monitor.status(this.ctx.writer.pending);
  }

  /** The seeds' /reStore: every unfinished journaled job back into the inner store. Idempotent. */
  async restore(options: RestoreOptions, now: EpochMs = this.clock.now()): Promise<RestoreSummary> {
    await this.ctx.writer.flush();
    await this.monitor.restoring(now);
    const summary = await restoreFromJournal(this.ctx, options, now);
    for (const step of this.restoreSteps) await step(now);
    await this.monitor.restored(summary);
    return summary;
  }

  onRestore(step: (now: EpochMs) => Promise<void>): void {
    this.restoreSteps.push(step);
  }

  /** The seeds' /reStore/{id}. */
  async restoreJob(id: string, options: RestoreOptions, now: EpochMs = this.clock.now()): Promise<RestoreSummary> {
    await this.ctx.writer.flush();
    return restoreJob(this.ctx, id, options, now);
  }

  /** The seeds' /clearAll: cancels every unfinished job; needs `confirm: 'clear-all'`; audited in history. */
  async clearAll(options: ClearAllOptions, now: EpochMs = this.clock.now()): Promise<ClearAllSummary> {
    await this.ctx.writer.flush();
    return clearAllJobs(this.ctx, options, now);
  }
}
