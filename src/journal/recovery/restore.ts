import { restoreTopicState } from '../journaled-topic-state.js';
import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { isTerminal, type JobState, type NewJob, type TopicStats } from '../../core/job.js';
import type { NumberedId } from '../../store/job-numbers.js';
import type { KeptReservation, PushResult, Store, StoreWatcher } from '../../store/store.js';
import type {
  ClearAllOptions,
  ClearAllSummary,
  Journal,
  JournalJob,
  RestoreOptions,
  RestoreSummary,
} from '../journal.js';
import { entry, toNewJob } from '../journal-jobs.js';
import { heldRunAt, keptReservation } from '../journaled-store/kept-reservations.js';
import type { JournalWriter } from '../journaled-store/journal-writer.js';

export type { ClearAllOptions, ClearAllSummary, RestoreOptions, RestoreSummary };

export interface RestoreContext {
  inner: Store;
  journal: Journal;
  writer: JournalWriter;
  nodeId: string;
  horizonMs: number;
  batchSize: number;
  /** This process's waiters and timer: jobs a restore brings back were not pushed through the service. */
  wake?: StoreWatcher | undefined;
}

const RESTORE_REASON = 'restored from the journal';

/** Pages of a restore being pushed into the inner store at once (the next page is read meanwhile). */
const RESTORE_PAGES_IN_FLIGHT = 3;

/**
 * The seeds' /reStore. Reads what the inner store should hold: the unfinished rows it was handed (loaded, in id
 * order) and then the journal-only ones due within the horizon (in due order), each a keyset scan of its own
 * index; the journal-only rows due later are not read (the loader brings them in when they near). The rows are
 * pushed into the inner store, whose push is idempotent by id, so running it twice (or while serving, or from two
 * processes) changes nothing the second time. The next page is read while earlier ones are written, and up to
 * RESTORE_PAGES_IN_FLIGHT pages are written at once (pages hold different jobs). A job that was reserved goes
 * back reserved under the same token, deadline and attempts (journaled-store/kept-reservations.ts); the others
 * start their attempts again from 0 (the inner push has no such field). Each job's beanstalkd number comes back
 * with it. Topics' settings and pauses are put back before the jobs (journaled-topic-state.ts).
 */
export async function restoreFromJournal(
  ctx: RestoreContext,
  options: RestoreOptions,
  now: EpochMs,
): Promise<RestoreSummary> {
  const started = Date.now();
  const summary = emptySummary(now);
  const horizonAt = now + ctx.horizonMs;
  // Topics' settings and pauses first: a group's bound or a paused topic holds before its jobs come back.
  await restoreTopicState(ctx.journal.topicState, ctx.inner, now);
  await ctx.journal.prepareRestoreScan();
  await restorePages(ctx, options, now, summary, (last) => ctx.journal.listLoaded(last?.id ?? null, ctx.batchSize));
  await restorePages(ctx, options, now, summary, (last) =>
    ctx.journal.listJournalOnlyDue(horizonAt, last && { runAt: last.runAt, id: last.id }, ctx.batchSize),
  );
  await ctx.writer.flush(); // the restore history is part of the work
  // What stays for the loader, counted (journal-only-counts) rather than read.
  summary.leftInJournal = unfinishedCount(await ctx.journal.statsJournalOnly());
  summary.durationMs = Date.now() - started;
  return summary;
}

/** Restores the pages `next` reads (each after the last row of the one before) until a page comes back short. */
async function restorePages(
  ctx: RestoreContext,
  options: RestoreOptions,
  now: EpochMs,
  summary: RestoreSummary,
  next: (last: JournalJob | null) => Promise<JournalJob[]>,
): Promise<void> {
  const writing = new Set<Promise<void>>();
  let failure: { err: unknown } | undefined;
  let reading: Promise<JournalJob[]> = next(null);
  try {
    for (;;) {
      const rows = await reading;
      reading = Promise.resolve([]);
      if (!rows.length) break;
      if (rows.length === ctx.batchSize) reading = next(rows[rows.length - 1]!);
      const written: Promise<void> = restoreRows(ctx, rows, options, now, summary)
        .catch((err: unknown) => void (failure ??= { err }))
        .finally(() => writing.delete(written));
      writing.add(written);
      while (writing.size >= RESTORE_PAGES_IN_FLIGHT) await Promise.race(writing);
      if (failure) break;
    }
  } finally {
    // Nothing left running behind a failure: the read ahead and the pages in flight settle first.
    await reading.catch(() => undefined);
    await Promise.all(writing);
  }
  if (failure) throw failure.err;
}

/** The unfinished jobs among per-topic counts. */
function unfinishedCount(stats: readonly TopicStats[]): number {
  let n = 0;
  for (const s of stats)
    for (const [state, count] of Object.entries(s.counts)) if (!isTerminal(state as JobState)) n += count;
  return n;
}

/** A restore's counters before it has looked at any row. */
export function emptySummary(now: EpochMs): RestoreSummary {
  return {
    scanned: 0,
    restored: 0,
    alreadyPresent: 0,
    skippedExpired: 0,
    leftInJournal: 0,
    raced: 0,
    startedAt: now,
    durationMs: 0,
  };
}

/** The seeds' /reStore/{id}. */
export async function restoreJob(
  ctx: RestoreContext,
  id: string,
  options: RestoreOptions,
  now: EpochMs,
): Promise<RestoreSummary> {
  const started = Date.now();
  const summary = emptySummary(now);
  const row = await ctx.journal.get(id);
  if (!row) throw new DelayqError('E_NOT_FOUND', `job ${id} is not in the journal`, { details: { id } });
  if (row.finishedAt !== null) {
    throw new DelayqError('E_WRONG_STATE', `cannot restore job ${id}: it is ${row.state}`, {
      details: { id, state: row.state },
    });
  }
  await restoreRows(ctx, [row], options, now, summary);
  summary.durationMs = Date.now() - started;
  return summary;
}

/**
 * Restores those of `rows` the inner store does not hold. A job the inner store holds is never touched
 * (it is live there, or ended there and the reconciler journals that): only missing jobs are pushed,
 * marked expired (expire=false) or left to the journal (beyond the horizon).
 */
export async function restoreRows(
  ctx: RestoreContext,
  rows: JournalJob[],
  options: RestoreOptions,
  now: EpochMs,
  summary: RestoreSummary,
): Promise<void> {
  const expire = options.expire ?? true;
  const horizonAt = now + ctx.horizonMs;
  const toPush: JournalJob[] = [];
  const toUnload: JournalJob[] = [];
  const pastDue: JournalJob[] = [];
  const reserved = new Map<string, KeptReservation>();
  for (const row of rows) {
    summary.scanned++;
    const kept = keptReservation(row);
    // A job out with a consumer goes back to its holder, whatever its due time (journaled-store/kept-reservations.ts).
    if (kept) {
      reserved.set(row.id, kept);
      toPush.push(row);
    } else if (row.runAt >= horizonAt) {
      if (row.loaded) toUnload.push(row);
      else summary.leftInJournal++;
    } else if (row.runAt <= now && !expire) pastDue.push(row);
    else toPush.push(row);
  }
  // The push below is idempotent by id; the other two act on a row, so they first ask whether the inner store holds it.
  const [unload, skipped] = await Promise.all([
    missingFromInner(ctx.inner, toUnload),
    missingFromInner(ctx.inner, pastDue),
  ]);
  summary.alreadyPresent += toUnload.length - unload.length + pastDue.length - skipped.length;
  summary.leftInJournal += unload.length;
  if (toPush.length) {
    // A journal row carries every field of a NewJob: it is pushed as it is, without a copy per job; a reserved
    // one is held back (delayed) until its reservation is put back on it.
    const pushed = reserved.size ? toPush.map((r) => heldBack(r, reserved.get(r.id), now)) : toPush;
    const results = await ctx.inner.pushMany(pushed, now);
    // The reservations go back on the held jobs (one call each, sent together).
    const back = await Promise.all(
      results.map((r) => {
        const kept = r.created ? reserved.get(r.job.id) : undefined;
        return kept ? ctx.inner.restoreReservation(r.job.id, kept, now).then((o) => o.ok) : r.created;
      }),
    );
    const createdIds: string[] = [];
    const createdStates: JobState[] = [];
    results.forEach((r, i) => {
      if (!back[i]) return;
      createdIds.push(r.job.id);
      createdStates.push(reserved.has(r.job.id) ? 'reserved' : r.job.state);
    });
    summary.restored += createdIds.length;
    summary.alreadyPresent += results.length - createdIds.length;
    // A job finished or cancelled after we read it may have just been pushed back: cancel it again.
    const ended = new Set(await ctx.journal.terminalAmong(createdIds));
    for (const id of ended) {
      await ctx.inner.cancel(id, now, { reason: 'ended while being restored' });
      summary.raced++;
    }
    const notLoaded: string[] = [];
    for (const r of toPush) if (!r.loaded) notLoaded.push(r.id);
    await ctx.journal.setLoaded(notLoaded, true);
    // The numbers clients hold for these jobs name them again (store/job-numbers.ts).
    const numbers: NumberedId[] = [];
    for (const r of toPush) if (r.number != null) numbers.push({ id: r.id, number: r.number });
    if (numbers.length) await ctx.inner.numbers.restore(numbers);
    // The page's restore entries, for the jobs that stayed restored: one statement of ids and states.
    const ids: string[] = [];
    const states: JobState[] = [];
    for (let i = 0; i < createdIds.length; i++) {
      if (ended.has(createdIds[i]!)) continue;
      ids.push(createdIds[i]!);
      states.push(createdStates[i]!);
    }
    if (ids.length) {
      await ctx.journal.appendHistory(ids, states, {
        at: now,
        event: 'restore',
        attempt: 0,
        node: ctx.nodeId,
        reason: RESTORE_REASON,
      });
    }
    wakeFor(ctx, results, ended);
  }
  if (unload.length)
    await ctx.journal.setLoaded(
      unload.map((r) => r.id),
      false,
    );
  if (skipped.length) {
    summary.skippedExpired += skipped.length;
    const expired: JournalJob[] = skipped.map((j) => ({ ...j, state: 'expired', finishedAt: now, loaded: false }));
    // Guarded (force: false): a row that ended meanwhile keeps its own terminal state.
    await ctx.writer.upsert(
      expired,
      expired.map((j) => entry(j, 'restore', now, ctx.nodeId, 'not restored: due time passed and expire=false')),
      { force: false, durable: true },
    );
  }
}

/** Long-polls of this process wait for the restored ready jobs, its timer for the earliest delayed one. */
function wakeFor(ctx: RestoreContext, results: readonly PushResult[], ended: ReadonlySet<string>): void {
  if (!ctx.wake) return;
  const topics = new Set<string>();
  let dueAt = Number.POSITIVE_INFINITY;
  for (const { created, job } of results) {
    if (!created || ended.has(job.id)) continue;
    if (job.state === 'ready') topics.add(job.topic);
    else if (job.state === 'delayed') dueAt = Math.min(dueAt, job.runAt);
  }
  if (topics.size) ctx.wake.onReady([...topics]);
  if (dueAt !== Number.POSITIVE_INFINITY) ctx.wake.onDue(dueAt);
}

/** A reserved row as pushed by a restore: delayed until its reservation is put back (heldRunAt). */
function heldBack(row: JournalJob, kept: KeptReservation | undefined, now: EpochMs): NewJob {
  return kept ? { ...toNewJob(row), runAt: heldRunAt(kept, now) } : row;
}

/** Those of `rows` the inner store does not hold (one read each, sent together). */
async function missingFromInner(inner: Store, rows: readonly JournalJob[]): Promise<JournalJob[]> {
  if (!rows.length) return [];
  const held = await Promise.all(rows.map((r) => inner.get(r.id)));
  return rows.filter((_, i) => held[i] === null);
}

export const CLEAR_ALL_CONFIRMATION = 'clear-all';
/** The audit entries of clearAll are kept under this reserved id (ids cannot start with `#`). */
export const CLEAR_ALL_AUDIT_ID = '#delayq:clear-all';

/**
 * The seeds' /clearAll: every unfinished job in the journal is cancelled there first (so no restore
 * brings it back), then in the inner store. Each job's history says who cleared it; one audit entry
 * records the whole operation.
 */
export async function clearAllJobs(
  ctx: RestoreContext,
  options: ClearAllOptions,
  now: EpochMs,
): Promise<ClearAllSummary> {
  if (options.confirm !== CLEAR_ALL_CONFIRMATION) {
    throw new DelayqError(
      'E_VALIDATION',
      `confirm: must be '${CLEAR_ALL_CONFIRMATION}' to cancel every unfinished job`,
      { field: 'confirm' },
    );
  }
  const started = Date.now();
  const reason = `clearAll by ${options.actor ?? 'unknown'}${options.reason ? `: ${options.reason}` : ''}`;
  await ctx.writer.history(
    [
      {
        jobId: CLEAR_ALL_AUDIT_ID,
        at: now,
        event: 'cancel',
        state: 'cancelled',
        attempt: 0,
        node: ctx.nodeId,
        reason: `${reason} (started)`,
      },
    ],
    true,
  );
  let cancelled = 0;
  for (;;) {
    const ids = await ctx.journal.cancelAllUnfinished(now, ctx.batchSize);
    if (!ids.length) break;
    for (const id of ids) await ctx.inner.cancel(id, now, { reason });
    cancelled += ids.length;
    void ctx.writer.history(
      ids.map((id) => ({
        jobId: id,
        at: now,
        event: 'cancel' as const,
        state: 'cancelled' as const,
        attempt: 0,
        node: ctx.nodeId,
        reason,
      })),
    );
  }
  await ctx.writer.history(
    [
      {
        jobId: CLEAR_ALL_AUDIT_ID,
        at: now,
        event: 'cancel',
        state: 'cancelled',
        attempt: 0,
        node: ctx.nodeId,
        reason: `${reason} (done: ${cancelled} jobs)`,
      },
    ],
    true,
  );
  return { cancelled, startedAt: now, durationMs: Date.now() - started };
}
