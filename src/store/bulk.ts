/** A bulk operation by selector: what Store.bulk takes and answers (bulk-by-selector.ts runs it). */
import type { EpochMs } from '../core/clock.js';
import { isTerminal, type JobState } from '../core/job.js';
import type { JobSelector } from '../core/job-selector.js';
import type { JobRef } from './job-ref.js';

export type BulkAction =
  | { kind: 'cancel'; reason: string | null }
  | { kind: 'reschedule'; runAt: EpochMs }
  | { kind: 'shift'; shiftMs: number }
  | { kind: 'redrive' }
  | { kind: 'delete' };

export interface BulkRequest {
  action: BulkAction;
  selector: JobSelector;
  /** Jobs to look at in this call (matching the selector's topic, state, bizKey and tag). */
  limit: number;
  /** From the previous call's `next`; null: from the start. */
  cursor: string | null;
  /** Count what the action would change; change nothing. */
  dryRun: boolean;
}

export interface BulkResult {
  /** Jobs of this slice that match the selector and are in a state the action applies to. */
  matched: number;
  /** Jobs the action changed (0 on a dry run; fewer than matched when a job moved meanwhile). */
  applied: number;
  /** Cursor for the next call, or null when the selection is exhausted. */
  next: string | null;
  /** A cancel's jobs it cancelled (at most `limit`), for their `cancelled` events; empty for other actions. */
  cancelled: JobRef[];
}

/** States each action applies to (the store's transition refuses any other). */
export function actionApplies(action: BulkAction, state: JobState): boolean {
  switch (action.kind) {
    case 'cancel':
      return state === 'delayed' || state === 'ready' || state === 'reserved';
    case 'reschedule':
    case 'shift':
      return state === 'delayed' || state === 'ready';
    case 'redrive':
      return state === 'dead';
    case 'delete':
      return isTerminal(state);
  }
}
