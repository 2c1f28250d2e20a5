import type { EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import { isTerminal, type Job, type NewJob } from '../core/job.js';
import { notFound, ok, wrongState, type CancelledJob, type Outcome, type PushResult } from '../store/store.js';
import { entry, loadedJob, newJournalJob, toNewJob, withoutLoaded } from './journal-jobs.js';
import type { RestoreContext } from './journal-restore.js';

// The producers' side of the journaled store (journaled-store.ts): push and cancel go to the journal first,
// so no restore brings back what was refused, and nothing acknowledged is only in the inner store.

export async function pushJournaled(ctx: RestoreContext, jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
  const horizonAt = now + ctx.horizonMs;
  const rows = jobs.map((job) => newJournalJob(job, now, job.runAt < horizonAt));
  const created = await ctx.writer.insert(rows);
  const firstSeen = new Set<string>();
  const toInner = rows.filter((r) => {
    const first = !firstSeen.has(r.id);
    firstSeen.add(r.id);
    return first && created.has(r.id) && r.loaded;
  });
  const innerResults = new Map(
    (toInner.length ? await ctx.inner.pushMany(toInner.map(toNewJob), now) : []).map((r) => [r.job.id, r.job]),
  );
  const seen = new Set<string>();
  const results: PushResult[] = [];
  for (const row of rows) {
    const first = !seen.has(row.id);
    seen.add(row.id);
    if (first && created.has(row.id)) {
      results.push({ created: true, job: innerResults.get(row.id) ?? withoutLoaded(row) });
    } else {
      results.push({ created: false, job: await existing(ctx, row.id, now) });
    }
  }
  return results;
}

/** A duplicate push: the job as it is; repairs a journaled job the inner store should hold but lost. */
async function existing(ctx: RestoreContext, id: string, now: EpochMs): Promise<Job> {
  const inner = await ctx.inner.get(id);
  if (inner) return inner;
  const row = await ctx.journal.get(id);
  if (!row) throw new DelayqError('E_INTERNAL', `job ${id} is neither in the journal nor in the store`);
  if (row.loaded && !isTerminal(row.state)) {
    const [pushed] = await ctx.inner.pushMany([toNewJob(row)], now);
    return pushed!.job;
  }
  return withoutLoaded(row);
}

export async function cancelJournaled(
  ctx: RestoreContext,
  id: string,
  now: EpochMs,
  reason?: string,
): Promise<Outcome<CancelledJob>> {
  // Journal first: once the journal says cancelled, no restore brings the job back.
  const journalCancelled = await ctx.journal.cancel(id, now);
  const outcome = await ctx.inner.cancel(id, now, reason);
  if (outcome.ok) {
    const job = outcome.value.job;
    if (!journalCancelled) await ctx.writer.upsert([loadedJob(job)], [], { force: true, durable: true });
    void ctx.writer.history([entry(job, 'cancel', now, ctx.nodeId, reason ?? null)]);
    return outcome;
  }
  if (outcome.reason === 'not_found') {
    const row = await ctx.journal.get(id);
    if (!row) return notFound();
    if (!journalCancelled) return wrongState(row.state);
    // Held only by the journal (beyond the horizon, or lost by the inner store): cancelled there, never out.
    void ctx.writer.history([entry(row, 'cancel', now, ctx.nodeId, reason ?? null)]);
    return ok({ job: withoutLoaded(row), dispatched: false });
  }
  // The inner store refused (the job ended meanwhile): put its truth back into the journal.
  if (journalCancelled) {
    const job = await ctx.inner.get(id);
    if (job) await ctx.writer.upsert([loadedJob(job)], [], { force: true, durable: true });
  }
  return outcome;
}

export async function rescheduleJournaled(
  ctx: RestoreContext,
  id: string,
  runAt: EpochMs,
  now: EpochMs,
): Promise<Outcome<Job>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const outcome = await ctx.inner.reschedule(id, runAt, now);
    if (outcome.ok) {
      await ctx.writer.upsert(
        [loadedJob(outcome.value)],
        [entry(outcome.value, 'reschedule', now, ctx.nodeId, `runAt=${runAt}`)],
        {
          force: false,
          durable: true,
        },
      );
      return outcome;
    }
    if (outcome.reason !== 'not_found') return outcome;
    if (await ctx.journal.rescheduleJournalOnly(id, runAt, now)) {
      const row = (await ctx.journal.get(id))!;
      let job = withoutLoaded(row);
      if (runAt < now + ctx.horizonMs) {
        const [pushed] = await ctx.inner.pushMany([toNewJob(row)], now);
        await ctx.journal.setLoaded([id], true);
        job = pushed!.job;
      }
      void ctx.writer.history([entry(job, 'reschedule', now, ctx.nodeId, `runAt=${runAt}`)]);
      return ok(job);
    }
    const row = await ctx.journal.get(id);
    if (!row) return notFound();
    // The loader took it into the inner store between our two reads: ask the inner store again.
    if (!(row.loaded && !isTerminal(row.state))) return row.state === 'delayed' ? notFound() : wrongState(row.state);
  }
  return notFound();
}
