import type { EpochMs } from '../../core/clock.js';
import { isTerminal, type Job, type HistoryEvent, type JobState } from '../../core/job.js';
import type { Store } from '../../store/store.js';
import type { Journal, JournalJob } from '../journal.js';
import { entry, loadedJob, MARKER_ID } from '../journal-jobs.js';
import { emptySummary, restoreRows, type RestoreContext } from './restore.js';

export interface ReconcileSummary {
  /** Unfinished journal rows compared with the inner store in this pass. */
  checked: number;
  /** Rows the inner store holds in a terminal state (a finish, bury, cancel or expiry the journal missed): journaled now. */
  ended: number;
  /** Rows the inner store does not hold although it should (a push whose inner write was lost): pushed back. */
  repushed: number;
  /** This pass finished a cycle over every unfinished row. */
  cycleDone: boolean;
}

/** The shared progress of reconciliation, kept in the journal's meta table (one row for every instance). */
interface Progress {
  /** Last id checked in the current cycle; null: the next pass starts a cycle. */
  cursor: string | null;
  /** When the current cycle started (store clock). */
  cycleStartedAt: EpochMs;
  /** Start of the last complete cycle less settleMs: every job that ended in the inner store before it is journaled as ended. */
  watermark: EpochMs | null;
}

const PROGRESS_META = 'reconcile-progress';

/** The wait before a missing row is pushed back while a failover's loss is being repaired (see expedite). */
const LOSS_SETTLE_MS = 1000;

/** The history event that records a terminal state found in the inner store. */
const EVENT_OF: Partial<Record<JobState, HistoryEvent>> = {
  finished: 'finish',
  dead: 'bury',
  cancelled: 'cancel',
  expired: 'expire',
};

/**
 * Brings unfinished journal rows in line with the inner store (docs/journal.md, "Reconciliation").
 * Each pass takes the next `batchSize` unfinished rows in id order from a cursor shared by every instance
 * through a compare-and-set on the meta table, compares each with the inner store and:
 *  - ended there at least `settleMs` ago (a crash between the inner finish and the journal write, or a ttl
 *    expiry), and still unfinished in the journal when re-read: journals the end;
 *  - missing there, not written for `settleMs`, and the inner store still has its marker: pushes it back
 *    (a push whose inner write was lost), as a restore would.
 * Every action is idempotent, so two instances taking the same batch only repeat work. A cycle over U
 * unfinished rows takes ceil(U / batchSize) passes; the start of the last complete cycle less settleMs is the watermark
 * below which the inner store may purge ended jobs (`purgeBefore`), so no ended job leaves the inner store
 * before the journal knows it ended.
 */
export class JournalReconciler {
  private readonly ctx: RestoreContext;
  private readonly settleMs: number;
  /** Until then (process wall clock) missing rows are pushed back after LOSS_SETTLE_MS: a failover lost writes. */
  private expeditedUntil = 0;
  /**
   * When (process wall clock) a pass also looks at the reserved rows first: at this process's start, and once
   * their ends are old enough to be taken. A kill between a finish in the inner store and its journal write
   * leaves a reserved row behind; journaled soon after the restart, a wipe soon after cannot bring it back.
   */
  private readonly reservedLooks: number[];

  constructor(ctx: RestoreContext, settleMs: number) {
    this.ctx = ctx;
    this.settleMs = settleMs;
    this.reservedLooks = [Date.now(), Date.now() + settleMs];
  }

  private get inner(): Store {
    return this.ctx.inner;
  }

  private get journal(): Journal {
    return this.ctx.journal;
  }

  async pass(now: EpochMs): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = { checked: 0, ended: 0, repushed: 0, cycleDone: false };
    if (this.reservedLooks.length && Date.now() >= this.reservedLooks[0]!) {
      this.reservedLooks.shift();
      const reserved = await this.journal.listReserved(this.ctx.batchSize);
      const held = await Promise.all(reserved.map((r) => this.inner.get(r.id)));
      summary.checked += reserved.length;
      summary.ended += await this.journalEnds(held, now);
    }
    const raw = await this.journal.getMeta(PROGRESS_META);
    const progress = parse(raw);
    const cycleStartedAt = progress.cursor === null ? now : progress.cycleStartedAt;
    const rows = await this.journal.listUnfinished(progress.cursor, this.ctx.batchSize);
    summary.checked += rows.length;
    const held = await Promise.all(rows.map((r) => this.inner.get(r.id)));
    const missing = rows.filter((row, i) => !held[i] && row.loaded);
    summary.ended += await this.journalEnds(held, now);
    if (missing.length) summary.repushed = await this.repush(missing, now);
    const done = rows.length < this.ctx.batchSize;
    const next: Progress = {
      cursor: done ? null : rows[rows.length - 1]!.id,
      cycleStartedAt,
      // Ends younger than settleMs at their check were left for later: the cycle vouches only for older ones.
      watermark: done ? cycleStartedAt - this.settleMs : progress.watermark,
    };
    // Another instance may have taken the same batch: its write wins, this pass's work was idempotent.
    await this.journal.swapMeta(PROGRESS_META, raw, JSON.stringify(next));
    summary.cycleDone = done;
    return summary;
  }

  /** Journals the ends the inner store holds for unfinished rows (`held`: those jobs as it holds them); how many. */
  private async journalEnds(held: readonly (Job | null)[], now: EpochMs): Promise<number> {
    // An end younger than settleMs may still have its own journal write in flight: a later pass takes it.
    let ended = held.filter(
      (job): job is Job => job !== null && isTerminal(job.state) && (job.finishedAt ?? now) <= now - this.settleMs,
    );
    const stillOpen = ended.length
      ? new Set(
          await this.journal.staleAmong(
            ended.map((j) => j.id),
            Number.MAX_SAFE_INTEGER,
          ),
        )
      : new Set();
    ended = ended.filter((j) => stillOpen.has(j.id));
    if (ended.length) {
      // Guarded: a row that ended since the re-read (the late journal write itself) keeps its own end.
      const history = ended.map((j) =>
        entry(j, EVENT_OF[j.state] ?? 'finish', now, this.ctx.nodeId, `reconciled: the store had it ${j.state}`),
      );
      await this.ctx.writer.upsert(ended.map(loadedJob), history, { force: false, durable: true });
    }
    return ended.length;
  }

  /**
   * A failover lost acknowledged writes (the inner store's notice): for the next settleMs, a missing row is
   * pushed back once it was not written for LOSS_SETTLE_MS instead of settleMs, so the pushes of the lost
   * window come back within a loader round or two. Pushing back a push still on its way is harmless (the inner
   * push is idempotent by id, and the restore re-checks ends), only less likely with the longer wait.
   */
  expedite(): void {
    this.expeditedUntil = Date.now() + this.settleMs;
  }

  /** Ended jobs may leave the inner store only if they ended before the watermark (none before a first cycle). */
  async purgeBefore(before: EpochMs): Promise<EpochMs | null> {
    const { watermark } = parse(await this.journal.getMeta(PROGRESS_META));
    return watermark === null ? null : Math.min(before, watermark);
  }

  /** The inner store's purge of jobs that ended before `before`, held back to the watermark. */
  async purgeInner(before: EpochMs, limit: number): Promise<number> {
    const bound = await this.purgeBefore(before);
    return bound === null ? 0 : this.inner.purge(bound, limit);
  }

  private async repush(missing: JournalJob[], now: EpochMs): Promise<number> {
    // Without its marker the inner store lost everything: the monitor's restore (or the operator) handles that.
    if (!(await this.inner.get(MARKER_ID))) return 0;
    // A row written in the last settleMs may be a push still on its way to the inner store: leave it for a later pass.
    const settle = Date.now() < this.expeditedUntil ? Math.min(LOSS_SETTLE_MS, this.settleMs) : this.settleMs;
    const stale = new Set(
      await this.journal.staleAmong(
        missing.map((r) => r.id),
        Date.now() - settle,
      ),
    );
    const rows = missing.filter((r) => stale.has(r.id));
    if (!rows.length) return 0;
    const summary = emptySummary(now);
    await restoreRows(this.ctx, rows, { expire: true }, now, summary);
    return summary.restored;
  }
}

function parse(raw: string | null): Progress {
  if (raw === null) return { cursor: null, cycleStartedAt: 0, watermark: null };
  const p = JSON.parse(raw) as Progress;
  return { cursor: p.cursor ?? null, cycleStartedAt: p.cycleStartedAt ?? 0, watermark: p.watermark ?? null };
}
