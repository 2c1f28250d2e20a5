import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { isTerminal, type Job, type NewJob } from '../../core/job.js';
import {
  notFound,
  ok,
  RUN_NOW_REASON,
  wrongState,
  type CancelledJob,
  type CancelParams,
  type Outcome,
  type PushResult,
} from '../../store/store.js';
import { pushClaiming } from '../../store/dedup-claims.js';
import { upsertRunAt, type PushChange } from '../../core/push-on-exists.js';
import { entry, loadedJob, newJournalJob, toNewJob, withoutLoaded } from '../journal-jobs.js';
import type { RestoreContext } from '../recovery/restore.js';

// The producers' side of the journaled store (journaled-store/journaled-store.ts): push and cancel go to the journal first,
// so no restore brings back what was refused, and nothing acknowledged is only in the inner store.

/**
 * The dedup window's claims are the journal's (store/dedup-claims.ts): taken there before the job's row, so they
 * hold across a wipe of the inner store and for jobs only the journal holds. The inner store gets the rule marked
 * claimed: it records the key in the push entry and claims nothing.
 */
export function pushJournaled(ctx: RestoreContext, jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
  const push = (some: readonly NewJob[]): Promise<PushResult[]> => pushUnclaimed(ctx, some, now);
  const find = async (id: string): Promise<Job | null> => {
    const inner = await ctx.inner.get(id);
    if (inner) return inner;
    const row = await ctx.journal.get(id);
    return row ? withoutLoaded(row) : null;
  };
  return pushClaiming(ctx.journal.dedupClaims, jobs, now, push, find);
}

async function pushUnclaimed(ctx: RestoreContext, claimed: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
  // Claimed in the journal already: the inner store records the key and claims nothing.
  const jobs = claimed.map((job) => (job.dedup ? { ...job, dedup: { ...job.dedup, claimed: true as const } } : job));
  const horizonAt = now + ctx.horizonMs;
  const rows = jobs.map((job) => newJournalJob(job, now, job.runAt < horizonAt));
  const created = await ctx.writer.insert(rows);
  const firstSeen = new Set<string>();
  const toInner: NewJob[] = [];
  rows.forEach((r, i) => {
    const first = !firstSeen.has(r.id);
    firstSeen.add(r.id);
    if (!first || !created.has(r.id) || !r.loaded) return;
    const inner = toNewJob(r);
    const dedup = jobs[i]!.dedup;
    if (dedup) inner.dedup = dedup;
    toInner.push(inner);
  });
  const innerResults = new Map(
    (toInner.length ? await ctx.inner.pushMany(toInner, now) : []).map((r) => [r.job.id, r.job]),
  );
  const seen = new Set<string>();
  const results: PushResult[] = [];
  for (const [i, row] of rows.entries()) {
    const first = !seen.has(row.id);
    seen.add(row.id);
    if (first && created.has(row.id)) {
      results.push({ created: true, job: innerResults.get(row.id) ?? withoutLoaded(row) });
    } else {
      const job = jobs[i]!;
      results.push(
        job.onExists ? await upsertJournaled(ctx, job, now) : { created: false, job: await existing(ctx, row.id, now) },
      );
    }
  }
  return results;
}

/**
 * A push with an onExists rule whose id the journal holds: the inner store applies the rule atomically (its
 * push), then the journal keeps the job as changed; a journal-only job is changed in the journal alone, in one
 * conditional statement, and loaded when its new due time falls within the horizon.
 */
async function upsertJournaled(ctx: RestoreContext, job: NewJob, now: EpochMs): Promise<PushResult> {
  const rule = job.onExists!;
  const held = await existing(ctx, job.id, now);
  if (held.topic !== job.topic || (held.state !== 'delayed' && held.state !== 'ready'))
    return { created: false, job: held };
  const change: PushChange = rule.mode === 'replace' ? 'replaced' : 'extended';
  const event = rule.mode === 'replace' ? 'replace' : 'extend';
  if (await ctx.inner.get(job.id)) {
    const [result] = await ctx.inner.pushMany([job], now);
    if (!result!.change) return result!;
    if (rule.mode === 'replace') await ctx.journal.replaceBody(job.id, job.body);
    const changed = result!.job;
    await ctx.writer.upsert([loadedJob(changed)], [entry(changed, event, now, ctx.nodeId, `runAt=${changed.runAt}`)], {
      force: false,
      durable: true,
    });
    return result!;
  }
  const runAt = upsertRunAt(rule, job.runAt, held.createdAt);
  const replace = rule.mode === 'replace';
  const upsert = { runAt, body: replace ? job.body : null, priority: replace ? job.priority : null };
  if (!(await ctx.journal.upsertJournalOnly(job.id, upsert)))
    return { created: false, job: await existing(ctx, job.id, now) };
  const row = (await ctx.journal.get(job.id))!;
  let changed = withoutLoaded(row);
  if (runAt < now + ctx.horizonMs) {
    const [pushed] = await ctx.inner.pushMany([toNewJob(row)], now);
    await ctx.journal.setLoaded([job.id], true);
    changed = pushed!.job;
  }
  void ctx.writer.history([entry(changed, event, now, ctx.nodeId, `runAt=${runAt}`)]);
  return { created: false, job: changed, change };
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
  params: CancelParams,
): Promise<Outcome<CancelledJob>> {
  // Journal first: once the journal says cancelled, no restore brings the job back.
  const journalCancelled = await ctx.journal.cancel(id, now);
  const outcome = await ctx.inner.cancel(id, now, params);
  if (outcome.ok) {
    const job = outcome.value.job;
    if (!journalCancelled) await ctx.writer.upsert([loadedJob(job)], [], { force: true, durable: true });
    void ctx.writer.history([entry(job, 'cancel', now, ctx.nodeId, params.reason ?? null)]);
    return outcome;
  }
  if (outcome.reason === 'not_found') {
    const row = await ctx.journal.get(id);
    if (!row) return notFound();
    if (!journalCancelled) return wrongState(row.state);
    // Held only by the journal (beyond the horizon, or lost by the inner store): cancelled there, never out.
    void ctx.writer.history([entry(row, 'cancel', now, ctx.nodeId, params.reason ?? null)]);
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

/**
 * delayed → ready at once, the journal recording the new due time (so a restore brings the job back ready). A job
 * only the journal holds (beyond the horizon) is first loaded into the inner store as it is, then run there, so
 * both histories tell the same story.
 */
export async function runNowJournaled(ctx: RestoreContext, id: string, now: EpochMs): Promise<Outcome<Job>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const outcome = await ctx.inner.runNow(id, now);
    if (outcome.ok) {
      await ctx.writer.upsert(
        [loadedJob(outcome.value)],
        [entry(outcome.value, 'promote', now, ctx.nodeId, RUN_NOW_REASON)],
        { force: false, durable: true },
      );
      return outcome;
    }
    if (outcome.reason !== 'not_found') return outcome;
    const row = await ctx.journal.get(id);
    if (!row) return notFound();
    if (row.state !== 'delayed') return wrongState(row.state);
    await ctx.inner.pushMany([toNewJob(row)], now);
    if (!row.loaded) await ctx.journal.setLoaded([id], true);
  }
  return notFound();
}
