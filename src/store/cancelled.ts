import type { Job } from '../core/job.js';
import type { CancelledJob, Outcome } from './store.js';

/** A cancel's outcome with whether the job was out (reserved) when it was cancelled. */
export function withDispatched(outcome: Outcome<Job>, dispatched: boolean): Outcome<CancelledJob> {
  return outcome.ok ? { ok: true, value: { job: outcome.value, dispatched } } : outcome;
}
