import type { EpochMs } from '../../core/clock.js';
import type { Reservation } from '../../core/job.js';
import { isTerminal } from '../../core/job.js';
import { notFound, wrongState, type Outcome, type ReserveOptions } from '../../store/store.js';
import { entry, reservedRow, toNewJob } from '../journal-jobs.js';
import type { RestoreContext } from '../recovery/restore.js';

/**
 * reserveJob on a journaled store: the inner store reserves; a job only the journal holds (delayed beyond
 * the horizon, or dead and purged from the inner store) is pushed back into it first, then reserved. The
 * journal is written durably and over a terminal row (a dead job leaves that state), as redrive does.
 */
export async function reserveJobJournaled(
  ctx: RestoreContext,
  id: string,
  now: EpochMs,
  options?: ReserveOptions,
): Promise<Outcome<Reservation>> {
  let outcome = await ctx.inner.reserveJob(id, now, options);
  if (!outcome.ok && outcome.reason === 'not_found') {
    const row = await ctx.journal.get(id);
    if (!row) return notFound();
    if (row.state !== 'delayed' && row.state !== 'dead') return wrongState(row.state);
    const runAt = row.state === 'dead' ? now : row.runAt;
    await ctx.inner.pushMany([{ ...toNewJob(row), runAt }], now);
    if (row.state === 'delayed') await ctx.journal.setLoaded([id], true);
    outcome = await ctx.inner.reserveJob(id, now, options);
  }
  if (outcome.ok) {
    const job = outcome.value.job;
    await ctx.writer.upsert([reservedRow(outcome.value)], [entry(job, 'reserve', now, ctx.nodeId)], {
      force: true,
      durable: true,
    });
    return outcome;
  }
  if (outcome.reason !== 'not_found') return outcome;
  const row = await ctx.journal.get(id);
  return row && isTerminal(row.state) ? wrongState(row.state) : outcome;
}
