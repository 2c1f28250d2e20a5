import type { Logger } from 'pino';
import type { EpochMs } from '../core/clock.js';
import type { Job } from '../core/job.js';
import { wrongState, type FinishItem, type Outcome, type ReserveOptions, type ReserveResult } from '../store/store.js';
import type { Journal } from './journal.js';
import { entry, loadedJob } from './journal-jobs.js';
import type { RestoreContext } from './journal-restore.js';
import { withoutJournaledEnds } from './journaled-ends.js';

// The consumers' side of the journaled store (journaled-store.ts): the inner store checks the token first, then
// the journal records the step, durably (awaited) for terminal steps and asynchronously for reserve, retry, release.

export type SettleEvent = 'finish' | 'retry' | 'bury' | 'release';

export async function reserveJournaled(
  ctx: RestoreContext,
  logger: Logger,
  topics: readonly string[],
  count: number,
  now: EpochMs,
  options: ReserveOptions | undefined,
): Promise<ReserveResult> {
  const { reservations: held, expired } = await ctx.inner.reserve(topics, count, now, options);
  const reserved = held.length ? await withoutJournaledEnds(ctx.inner, ctx.journal, held, now, logger) : held;
  if (reserved.length) {
    const jobs = reserved.map((r) => r.job);
    void ctx.writer.upsert(
      jobs.map(loadedJob),
      jobs.map((j) => entry(j, 'reserve', now, ctx.nodeId)),
      { force: false, durable: false },
    );
  }
  return { reservations: reserved, expired };
}

/** Inner store first (it checks the token), then the journal: durably for terminal steps. */
export async function settleJournaled(
  ctx: RestoreContext,
  id: string,
  pending: Outcome<Job> | Promise<Outcome<Job>>,
  event: SettleEvent,
  now: EpochMs,
  reason: string | null,
  durable: boolean,
): Promise<Outcome<Job>> {
  const outcome = await pending;
  if (outcome.ok && !outcome.repeated) {
    // a repeated finish changed nothing: the journal has it
    const job = outcome.value;
    await ctx.writer.upsert([loadedJob(job)], [entry(job, event, now, ctx.nodeId, reason)], {
      force: durable,
      durable,
    });
    return outcome;
  }
  return refusedAsJournaled(ctx.journal, id, outcome);
}

/** The inner store settles the batch in one call; then each item is journaled as its own finish would be. */
export async function finishManyJournaled(
  ctx: RestoreContext,
  items: readonly FinishItem[],
  now: EpochMs,
): Promise<Outcome<Job>[]> {
  const outcomes = await ctx.inner.finishMany(items, now);
  return Promise.all(outcomes.map((o, i) => settleJournaled(ctx, items[i]!.id, o, 'finish', now, null, true)));
}

/** A job only the journal holds (beyond the horizon, purged after it ended) is refused as in every shape: wrong_state. */
export async function refusedAsJournaled(journal: Journal, id: string, outcome: Outcome<Job>): Promise<Outcome<Job>> {
  if (outcome.ok || outcome.reason !== 'not_found') return outcome;
  const row = await journal.get(id);
  return row ? wrongState(row.state) : outcome;
}
