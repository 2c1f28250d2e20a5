import type { Logger } from 'pino';
import type { EpochMs } from '../../core/clock.js';
import type { Reservation } from '../../core/job.js';
import type { RestoreContext } from '../recovery/restore.js';
import { reservedRow } from '../journal-jobs.js';
import { giveBack, resolvedByJournal } from './ends.js';

/**
 * A reservation is claimed in the journal, not written over another: the guarded upsert that journals it
 * leaves a row that another holder keeps reserved past this reservation's start, or that has ended (sql/*-batch.ts).
 * Two processes can each check the journal before the other's write lands: a Sentinel split brain, where the
 * old master answers a reserve from its stale copy while the new master hands the same job to someone else.
 * The claim makes the first write win, and the write's report (PostgreSQL's RETURNING: the rows the guard let it
 * write) or else this read-back tells the reserve whether it won.
 *
 * A reservation whose row holds another token is resolved as the check before the write resolves it: the job
 * goes back to the journal's holder unless the inner store saw that holder's reservation and has moved on to
 * this one (a release or a failure the journal has not got yet, as its write is asynchronous). Then the row is
 * stale and this reservation is written over it.
 */
export async function confirmedByJournal(
  ctx: RestoreContext,
  reserved: Reservation[],
  claimed: ReadonlyMap<string, string | null> | null,
  now: EpochMs,
  logger: Logger,
): Promise<Reservation[]> {
  // A row the claim's own write left holding this token is won (PostgreSQL reports its writes); the rest are read.
  const unsure = claimed ? reserved.filter((r) => claimed.get(r.job.id) !== r.token) : reserved;
  if (!unsure.length) return reserved;
  let rows;
  try {
    rows = await ctx.journal.endedOrReservedAmong(
      unsure.map((r) => r.job.id),
      now,
    );
  } catch (err) {
    await giveBack(ctx.inner, reserved, now);
    throw err;
  }
  const tokens = new Map(reserved.map((r) => [r.job.id, r.token]));
  const refused = rows.filter((row) => row.finishedAt !== null || row.token !== tokens.get(row.id));
  if (!refused.length) return reserved;
  const ids = new Set(refused.map((row) => row.id));
  const contested = reserved.filter((r) => ids.has(r.job.id));
  const kept = await resolvedByJournal(ctx.inner, ctx.journal, contested, refused, now, logger, ctx.nodeId);
  if (kept.length) {
    // The inner store moved on from the journal's holder to this one: the row is stale, this one replaces it.
    await ctx.writer.upsert(kept.map(reservedRow), [], { force: true, durable: true });
  }
  const answered = new Set(kept.map((r) => r.job.id));
  return reserved.filter((r) => !ids.has(r.job.id) || answered.has(r.job.id));
}
