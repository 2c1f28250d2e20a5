/** Store outcomes as the API answers them: the value, or the catalogue error that explains the refusal. */
import { DelayqError } from '../core/errors.js';
import type { JobState } from '../core/job.js';
import type { Outcome } from './store.js';

/** The 404 of a job the store does not hold. */
export function notFoundError(id: string): DelayqError {
  return new DelayqError('E_NOT_FOUND', `job ${id} does not exist (or was purged)`, { details: { id } });
}

/** Turns a store Outcome into the job, or the catalogue error that explains the refusal. */
export function unwrap<T>(outcome: Outcome<T>, id: string, operation: string): T {
  if (outcome.ok) return outcome.value;
  switch (outcome.reason) {
    case 'not_found':
      throw notFoundError(id);
    case 'wrong_state':
      throw new DelayqError(
        'E_WRONG_STATE',
        `cannot ${operation} job ${id}: it is ${outcome.state ?? 'in another state'}`,
        {
          details: { id, state: outcome.state },
        },
      );
    case 'token_mismatch':
      throw new DelayqError(
        'E_TOKEN_MISMATCH',
        `cannot ${operation} job ${id}: the reservation token is stale (the job was reserved again since, under another token)`,
        { details: { id, state: outcome.state } },
      );
  }
}

/** A run now of a job that is not delayed: only a job waiting for its due time (or a retry) can be run now. */
export function notDelayed(id: string, state: JobState | undefined): DelayqError {
  return new DelayqError(
    'E_WRONG_STATE',
    `cannot run job ${id} now: it is ${state ?? 'in another state'}, and only a delayed job (waiting for its due time or a retry) can be run now`,
    { details: { id, state } },
  );
}
