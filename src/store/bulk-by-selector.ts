/**
 * Bulk operations by selector (issue 23), shared by every store: one call looks at up to `limit` jobs
 * matching the selector in id order (Store.list), applies the action to those in a state it allows, and
 * answers a cursor to continue. Bounded per call, so one call never holds the store for long; each job's
 * change is the store's own transition (cancel, reschedule, redrive, deleteEndedMany), so it is atomic per job
 * and journaled where the store journals.
 */
import type { EpochMs } from '../core/clock.js';
import type { Job } from '../core/job.js';
import { inDueRange } from '../core/job-selector.js';
import { actionApplies, type BulkAction, type BulkRequest, type BulkResult } from './bulk.js';
import type { JobRef, Store } from './store.js';

/** One bulk call over `store` (its list, then its per-job transitions, all of one slice at once). */
export async function bulkBySelector(store: Store, request: BulkRequest, now: EpochMs): Promise<BulkResult> {
  const { selector, action } = request;
  const page = await store.list({
    topic: selector.topic ?? undefined,
    state: selector.state ?? undefined,
    bizKey: selector.bizKey ?? undefined,
    tag: selector.tag ?? undefined,
    limit: request.limit,
    cursor: request.cursor ?? undefined,
  });
  const chosen = page.jobs.filter((job) => inDueRange(selector, job.runAt) && actionApplies(action, job.state));
  if (request.dryRun) return { matched: chosen.length, applied: 0, next: page.next, cancelled: [] };
  if (action.kind === 'cancel') {
    const { applied, cancelled } = await cancelAll(store, chosen, action.reason ?? 'bulk cancel', now);
    return { matched: chosen.length, applied, next: page.next, cancelled };
  }
  const applied = await apply(store, action, chosen, now);
  return { matched: chosen.length, applied, next: page.next, cancelled: [] };
}

/** Cancels each job (the store's own transition); how many it applied to, and the ones this call cancelled. */
async function cancelAll(
  store: Store,
  jobs: readonly Job[],
  reason: string,
  now: EpochMs,
): Promise<{ applied: number; cancelled: JobRef[] }> {
  const outcomes = await Promise.all(jobs.map((j) => store.cancel(j.id, now, reason)));
  // A `repeated` answer changed nothing: its event belongs to the call that did cancel the job.
  const cancelled = jobs
    .filter((_, i) => outcomes[i]!.ok && !outcomes[i]!.repeated)
    .map(({ id, topic }) => ({ id, topic }));
  return { applied: outcomes.filter((o) => o.ok).length, cancelled };
}

async function apply(
  store: Store,
  action: Exclude<BulkAction, { kind: 'cancel' }>,
  jobs: readonly Job[],
  now: EpochMs,
): Promise<number> {
  if (jobs.length === 0) return 0;
  switch (action.kind) {
    case 'redrive':
      return store.redrive({ ids: jobs.map((j) => j.id) }, now);
    case 'delete':
      return store.deleteEndedMany(jobs.map((j) => j.id));
    case 'reschedule':
      return count(jobs.map((j) => store.reschedule(j.id, action.runAt, now)));
    case 'shift':
      return count(jobs.map((j) => store.reschedule(j.id, Math.max(0, j.runAt + action.shiftMs), now)));
  }
}

async function count(outcomes: Promise<{ ok: boolean }>[]): Promise<number> {
  return (await Promise.all(outcomes)).filter((o) => o.ok).length;
}
