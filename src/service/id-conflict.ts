/**
 * Job ids are global: one id names one job, whatever its topic. A push of an id that a job of the same topic
 * holds is idempotent (that job, `created: false`); a push of an id held by a job of another topic is refused
 * as a conflict that says nothing of that job (not its topic, state or body), so a caller limited to some
 * topics learns nothing of the others by pushing. The store's push is one atomic insert-unless-present that
 * answers the job holding the id, so the check needs no second read.
 */
import { DelayqError } from '../core/errors.js';
import type { NewJob } from '../core/job.js';
import type { PushResult } from '../store/store.js';

/**
 * Throws E_CONFLICT naming the first push whose id a job of another topic holds (`jobs[i].id` in a batch). The
 * conflict is found as the batch is stored, so its other jobs are stored: `details.created` lists the indices
 * of those this call created, so a client that sends them again can still tell it created them.
 */
export function refuseIdConflicts(jobs: readonly NewJob[], results: readonly PushResult[], batch: boolean): void {
  const index = results.findIndex((r, i) => !r.created && r.job.topic !== jobs[i]!.topic);
  if (index < 0) return;
  const field = batch ? `jobs[${index}].id` : 'id';
  const others = batch ? ' (the batch’s other jobs are stored: pushing them again answers them as existing)' : '';
  throw new DelayqError(
    'E_CONFLICT',
    `${field}: another job holds this id; job ids are global across topics, so choose another (a prefix per topic keeps them apart)${others}`,
    { field, details: batch ? { created: results.flatMap((r, i) => (r.created ? [i] : [])) } : undefined },
  );
}
