import type { Logger } from 'pino';
import type { EpochMs } from '../../core/clock.js';
import { isTerminal, type Job } from '../../core/job.js';
import {
  tokenMismatch,
  wrongState,
  type FinishItem,
  type KeptReservation,
  type Outcome,
  type ReserveOptions,
  type ReserveResult,
} from '../../store/store.js';
import { entry, loadedJob, reservedRow, toNewJob } from '../journal-jobs.js';
import { heldRunAt, keptReservation, innerSawReservation } from './kept-reservations.js';
import { emptySummary, restoreRows, type RestoreContext } from '../recovery/restore.js';
import { checkedByJournal } from './ends.js';
import { confirmedByJournal } from './reservation-claims.js';

// The consumers' side of the journaled store (journaled-store/journaled-store.ts): the inner store checks the token first, then
// the journal records the step, durably (awaited) for reserve, touch and the terminal steps, asynchronously for
// retry and release. A reservation is journaled with its token and deadline before it is answered, so a store
// loss does not take it from its holder (journaled-store/kept-reservations.ts); a late retry or release of an older
// reservation does not undo it either (the guarded upsert: sql/mysql/mysql-batch.ts, sql/postgres/postgres-batch.ts).

export type SettleEvent = 'finish' | 'retry' | 'bury' | 'release';

export async function reserveJournaled(
  ctx: RestoreContext,
  logger: Logger,
  topics: readonly string[],
  count: number,
  now: EpochMs,
  options: ReserveOptions | undefined,
): Promise<ReserveResult> {
  const { reservations: held, expired, groupTokenInMs } = await ctx.inner.reserve(topics, count, now, options);
  const reserved = held.length ? await checkedByJournal(ctx.inner, ctx.journal, held, now, logger, ctx.nodeId) : held;
  if (reserved.length) {
    // Durable before the answer: a reservation a consumer holds is one a store loss cannot take from it.
    let claimed;
    try {
      claimed = await ctx.writer.claim(
        reserved.map(reservedRow),
        reserved.map((r) => entry(r.job, 'reserve', now, ctx.nodeId)),
      );
    } catch (err) {
      await Promise.all(reserved.map((r) => ctx.inner.release(r.job.id, r.token, now).catch(() => undefined)));
      throw err;
    }
    return { reservations: await confirmedByJournal(ctx, reserved, claimed, now, logger), expired, groupTokenInMs };
  }
  return { reservations: reserved, expired, groupTokenInMs };
}

/** touch: the new deadline is journaled, so a restore keeps the reservation that long. */
export async function touchJournaled(
  ctx: RestoreContext,
  id: string,
  token: string,
  now: EpochMs,
  run: () => Promise<Outcome<Job>>,
): Promise<Outcome<Job>> {
  const outcome = await repairedForHolder(ctx, id, token, await run(), now, run);
  if (!outcome.ok) return refusedAsJournaled(ctx, id, token, outcome);
  // Durable before the answer, as a reserve: the holder counts on the new deadline.
  await ctx.writer.upsert([reservedRow({ job: outcome.value, token, deadlineAt: outcome.value.deadlineAt! })], [], {
    force: false,
    durable: true,
  });
  return outcome;
}

/**
 * Store.restoreReservation on the inner store (a job only the journal holds is pushed in first, held back),
 * journaled asynchronously.
 */
export async function restoreReservationJournaled(
  ctx: RestoreContext,
  id: string,
  kept: KeptReservation,
  now: EpochMs,
  replacing?: string,
): Promise<Outcome<Job>> {
  let outcome = await ctx.inner.restoreReservation(id, kept, now, replacing);
  if (!outcome.ok && outcome.reason === 'not_found') {
    const row = await ctx.journal.get(id);
    if (!row) return outcome;
    if (isTerminal(row.state)) return wrongState(row.state);
    await ctx.inner.pushMany([{ ...toNewJob(row), runAt: heldRunAt(kept, now) }], now);
    if (!row.loaded) await ctx.journal.setLoaded([id], true);
    outcome = await ctx.inner.restoreReservation(id, kept, now);
  }
  if (outcome.ok) {
    const row = reservedRow({ job: outcome.value, token: kept.token, deadlineAt: kept.deadlineAt });
    void ctx.writer.upsert([row], [], { force: false, durable: false });
  }
  return outcome;
}

/** One settle of a reservation, as journaled: the job, the holder's token, what it did, and why. */
export interface SettleStep {
  id: string;
  token: string;
  event: SettleEvent;
  now: EpochMs;
  reason?: string | null;
}

/** The steps that end a job: journaled durably and over a live row (force). */
const TERMINAL_STEPS: ReadonlySet<SettleEvent> = new Set(['finish', 'bury']);

/**
 * Inner store first (it checks the token), then the journal: durably for terminal steps. `first` is the inner
 * store's answer when the caller already has it (a batch); `run` asks it (again).
 */
export async function settleJournaled(
  ctx: RestoreContext,
  step: SettleStep,
  run: () => Promise<Outcome<Job>>,
  first?: Outcome<Job>,
): Promise<Outcome<Job>> {
  const { id, token, event, now } = step;
  const outcome = await repairedForHolder(ctx, id, token, first ?? (await run()), now, run);
  if (outcome.ok) {
    // A repeated finish changed nothing in the inner store, but its first journal write may have been cut off
    // (a crash between the two writes): the end is journaled again, without a second history entry.
    const job = outcome.value;
    const durable = TERMINAL_STEPS.has(event);
    const history = outcome.repeated ? [] : [entry(job, event, now, ctx.nodeId, step.reason ?? null)];
    await ctx.writer.upsert([loadedJob(job)], history, { force: durable, durable });
    return outcome;
  }
  return refusedAsJournaled(ctx, id, token, outcome);
}

/** The inner store settles the batch in one call; then each item is journaled as its own finish would be. */
export async function finishManyJournaled(
  ctx: RestoreContext,
  items: readonly FinishItem[],
  now: EpochMs,
): Promise<Outcome<Job>[]> {
  const outcomes = await ctx.inner.finishMany(items, now);
  return Promise.all(
    outcomes.map((o, i) => {
      const { id, token } = items[i]!;
      return settleJournaled(ctx, { id, token, event: 'finish', now }, () => ctx.inner.finish(id, token, now), o);
    }),
  );
}

/**
 * A refusal because the inner store lost the holder's reservation (the job is missing there, or back ready or
 * delayed without that reservation in its history) while the journal keeps it under this token: the
 * reservation is put back (a missing job restored as the journal has it) and the step is run once more.
 * A reservation past its deadline is not put back on a job the inner store holds: it has lapsed, as it would
 * have without the loss (the step is answered as after a lapse), and another reserve may have taken the job
 * since the refusal; the restore would take it from that holder.
 */
async function repairedForHolder(
  ctx: RestoreContext,
  id: string,
  token: string,
  outcome: Outcome<Job>,
  now: EpochMs,
  run: () => Promise<Outcome<Job>>,
): Promise<Outcome<Job>> {
  if (outcome.ok || outcome.reason === 'token_mismatch') return outcome;
  if (outcome.reason === 'wrong_state' && outcome.state !== 'ready' && outcome.state !== 'delayed') return outcome;
  const row = await ctx.journal.get(id);
  const kept = row?.loaded ? keptReservation(row) : null;
  if (!row || !kept || kept.token !== token) return outcome;
  if (outcome.reason === 'not_found') await restoreRows(ctx, [row], { expire: true }, now, emptySummary(now));
  else if (kept.deadlineAt <= now || (await innerSawReservation(ctx.inner, id, kept))) return outcome;
  else {
    // refused when another holder reserved the job since (token_mismatch) or it ended: answered so
    const back = await ctx.inner.restoreReservation(id, kept, now);
    if (!back.ok) return back;
  }
  return run();
}

/**
 * A refusal as every shape answers it. A job only the journal holds (beyond the horizon, purged after it ended)
 * is in the journal's state (wrong_state); one the journal holds reserved under another token: token_mismatch.
 */
async function refusedAsJournaled(
  ctx: RestoreContext,
  id: string,
  token: string,
  outcome: Outcome<Job>,
): Promise<Outcome<Job>> {
  if (outcome.ok || outcome.reason !== 'not_found') return outcome;
  const row = await ctx.journal.get(id);
  if (!row) return outcome;
  if (row.state === 'reserved' && row.token && row.token !== token) return tokenMismatch('reserved');
  return wrongState(row.state);
}
