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
import type { Store } from './store.js';

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
  const applied = request.dryRun ? 0 : await apply(store, action, chosen, now);
  return { matched: chosen.length, applied, next: page.next };
}

async function apply(store: Store, action: BulkAction, jobs: readonly Job[], now: EpochMs): Promise<number> {
  if (jobs.length === 0) return 0;
  switch (action.kind) {
    case 'redrive':
      return store.redrive({ ids: jobs.map((j) => j.id) }, now);
    case 'delete':
      return store.deleteEndedMany(jobs.map((j) => j.id));
    case 'cancel':
      return count(jobs.map((j) => store.cancel(j.id, now, action.reason ?? 'bulk cancel')));
    case 'reschedule':
      return count(jobs.map((j) => store.reschedule(j.id, action.runAt, now)));
    case 'shift':
      return count(jobs.map((j) => store.reschedule(j.id, Math.max(0, j.runAt + action.shiftMs), now)));
  }
}

async function count(outcomes: Promise<{ ok: boolean }>[]): Promise<number> {
  return (await Promise.all(outcomes)).filter((o) => o.ok).length;
}
