import type { EpochMs } from '../core/clock.js';
import { isTerminal, type Job, type JobEvent, type JobState } from '../core/job.js';
import type { Store } from '../store/store.js';
import type { Journal, JournalJob } from './journal.js';
import { entry, loadedJob, MARKER_ID } from './journal-jobs.js';
import { emptySummary, restoreRows, type RestoreContext } from './journal-restore.js';

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

/** The history event that records a terminal state found in the inner store. */
const EVENT_OF: Partial<Record<JobState, JobEvent>> = {
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

  constructor(ctx: RestoreContext, settleMs: number) {
    this.ctx = ctx;
    this.settleMs = settleMs;
  }

  private get inner(): Store {
    return this.ctx.inner;
  }

  private get journal(): Journal {
    return this.ctx.journal;
  }

  async pass(now: EpochMs): Promise<ReconcileSummary> {
    const summary: ReconcileSummary = { checked: 0, ended: 0, repushed: 0, cycleDone: false };
    const raw = await this.journal.getMeta(PROGRESS_META);
    const progress = parse(raw);
    const cycleStartedAt = progress.cursor === null ? now : progress.cycleStartedAt;
    const rows = await this.journal.listUnfinished(progress.cursor, this.ctx.batchSize);
    summary.checked = rows.length;
    const held = await Promise.all(rows.map((r) => this.inner.get(r.id)));
    let ended: Job[] = [];
    const missing: JournalJob[] = [];
    rows.forEach((row, i) => {
      const job = held[i];
      if (!job) {
        if (row.loaded) missing.push(row);
      } else if (isTerminal(job.state)) {
        // An end younger than settleMs may still have its own journal write in flight: a later pass takes it.
        if ((job.finishedAt ?? now) <= now - this.settleMs) ended.push(job);
      }
    });
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
      summary.ended = ended.length;
    }
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
    const stale = new Set(
      await this.journal.staleAmong(
        missing.map((r) => r.id),
        Date.now() - this.settleMs,
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
