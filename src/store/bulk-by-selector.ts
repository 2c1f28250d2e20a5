/**
 * Bulk operations by selector, shared by every store (one rule, whatever the backend): one call looks at
 * up to `limit` jobs matching the selector in id order (Store.list), applies the action to those in a
 * state it allows, and answers a cursor to continue. Each job's change is the store's own transition
 * (cancel, reschedule, redrive, deleteEndedMany), so it is atomic per job and journaled where the store
 * journals.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { EpochMs } from '../core/clock.js';
import type { Job } from '../core/job.js';
import { inDueRange } from '../core/job-selector.js';
import { actionApplies, type BulkAction, type BulkRequest, type BulkResult } from './bulk.js';
import type { JobRef, Store } from './store.js';

/**
 * Jobs a bulk call reads and changes at once: a call goes through its `limit` a chunk at a time (a list
 * page, then its transitions), with a turn of the event loop between chunks, so the timer's and
 * producers' calls queued meanwhile (SQLite's group commit, the Redis connection, the journal's pool)
 * wait for one chunk, never for a whole call. Redis takes the larger chunk (its cancels go as one script
 * call per partition, off the event loop); SQLite, whose chunk is one synchronous transaction on the loop,
 * and the journal, whose chunk's writes go ahead of the timer's in its pool, the smaller one.
 */
export const BULK_CHUNK = 200;
export const BULK_CHUNK_SMALL = 50;

/**
 * One bulk call over `store`: chunks of list page and transitions. The next chunk's page is read while this
 * chunk's transitions run (ids after this page's cursor, which this chunk's transitions never touch), so the
 * store's time on one and the process's on the other overlap instead of taking turns.
 */
export async function bulkBySelector(
  store: Store,
  request: BulkRequest,
  now: EpochMs,
  chunkSize = BULK_CHUNK,
): Promise<BulkResult> {
  const { selector, action } = request;
  const result: BulkResult = { matched: 0, applied: 0, next: null, cancelled: [] };
  const listPage = (cursor: string | undefined, limit: number): ReturnType<Store['list']> => {
    const page = store.list({
      topic: selector.topic ?? undefined,
      state: selector.state ?? undefined,
      bizKey: selector.bizKey ?? undefined,
      tag: selector.tag ?? undefined,
      limit,
      cursor,
    });
    // awaited by the next chunk; a failure while this chunk's transitions still run is not unhandled
    page.catch(() => undefined);
    return page;
  };
  let left = request.limit;
  // A list page may hold fewer jobs than asked (a store stops looking where a filter matches rarely), so the
  // call also stops after as many pages as full ones would take: its work stays bounded, `next` continues.
  const chunks = Math.ceil(request.limit / chunkSize);
  let reading: ReturnType<Store['list']> | undefined = listPage(request.cursor ?? undefined, Math.min(chunkSize, left));
  for (let chunk = 0; reading; chunk++) {
    if (chunk > 0) await nextTurn();
    const page: Awaited<ReturnType<Store['list']>> = await reading;
    left -= page.jobs.length;
    result.next = page.next;
    reading =
      left > 0 && page.next !== null && chunk + 1 < chunks ? listPage(page.next, Math.min(chunkSize, left)) : undefined;
    const chosen = page.jobs.filter((job) => inDueRange(selector, job.runAt) && actionApplies(action, job.state));
    result.matched += chosen.length;
    if (!request.dryRun && chosen.length > 0) {
      if (action.kind === 'cancel') {
        const { applied, cancelled } = await cancelAll(store, chosen, action.reason ?? 'bulk cancel', now);
        result.applied += applied;
        result.cancelled.push(...cancelled);
      } else result.applied += await apply(store, action, chosen, now);
    }
  }
  return result;
}

/** Cancels each job (the store's own transition); how many it applied to, and the ones this call cancelled. */
async function cancelAll(
  store: Store,
  jobs: readonly Job[],
  reason: string,
  now: EpochMs,
): Promise<{ applied: number; cancelled: JobRef[] }> {
  const outcomes = await Promise.all(jobs.map((j) => store.cancel(j.id, now, { reason })));
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
