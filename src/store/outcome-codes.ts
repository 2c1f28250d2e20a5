import type { JobState } from '../core/job.js';
import { notFound, tokenMismatch, wrongState, type Outcome } from './store.js';

/**
 * The small integers Lua scripts (and SQL helpers) return for expected refusals; 0 is success, 1 a
 * success that changed nothing (a repeat of a finish already done with the same token).
 */
export const OUTCOME_CODES = { ok: 0, repeated: 1, notFound: -1, wrongState: -2, tokenMismatch: -3 } as const;

/** Maps a script's refusal code to the Store's Outcome; `state` is the job's current state. */
export function refusal<T>(code: number, state: JobState | undefined): Outcome<T> {
  switch (code) {
    case OUTCOME_CODES.notFound:
      return notFound();
    case OUTCOME_CODES.wrongState:
      return wrongState(state!);
    case OUTCOME_CODES.tokenMismatch:
      return tokenMismatch(state ?? 'reserved');
    default:
      throw new Error(`unknown outcome code ${code}`);
  }
}
