/**
 * Bulk operations by selector on the service (docs/job-api.md): cancel, reschedule (or shift), redrive or
 * delete the jobs a selector picks, one bounded slice per call. DelayqService owns one (`service.bulk`).
 */
import type { EpochMs } from '../core/clock.js';
import { invalid } from '../core/errors.js';
import { delayIn, validateJobId } from '../core/job-input.js';
import { normalizeSelector, type SelectorInput } from '../core/job-selector.js';
import { LIMITS } from '../core/limits.js';
import type { BulkAction, BulkResult } from '../store/bulk.js';
import type { StoreCalls } from './store-calls.js';

/** What bulk operations need of DelayqService besides its store calls: waking whom the moved jobs concern. */
export interface BulkHost extends StoreCalls {
  /** Wakes consumers of these topics (every waiting one when none is named) and the timer. */
  moved(topics: readonly string[], earliestDueAt: EpochMs | null): void;
}

export interface BulkInput {
  action: 'cancel' | 'reschedule' | 'redrive' | 'delete';
  selector: SelectorInput;
  /** reschedule: a new due time (epoch ms) … */
  runAt?: number | undefined;
  /** … or a shift of each job's due time (ms or a duration text; negative: earlier, in ms). */
  shiftMs?: number | string | undefined;
  /** cancel: the reason kept in each job's history. */
  reason?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  dryRun?: boolean | undefined;
}

export class BulkApi {
  private readonly host: BulkHost;
  /** The bulk slice running in this process: concurrent bulk calls take turns (see apply). */
  private running: Promise<unknown> = Promise.resolve();

  constructor(host: BulkHost) {
    this.host = host;
  }

  /** One bounded slice of a bulk operation; the answer's `next` continues it. */
  apply(input: BulkInput): Promise<Omit<BulkResult, 'cancelled'>> {
    return this.host.run(async () => {
      const now = this.host.now();
      const action = this.actionOf(input, now);
      const selector = normalizeSelector(input.selector);
      const limit = input.limit ?? LIMITS.bulkMaxPerCall;
      if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.bulkMaxPerCall)
        throw invalid('limit', `must be an integer from 1 to ${LIMITS.bulkMaxPerCall}`);
      if (input.cursor !== undefined) validateJobId(input.cursor, 'cursor');
      // One slice at a time per process: each slice already keeps one chunk in the store at once
      // (store/bulk-by-selector.ts), and callers running side by side would multiply that.
      const run = this.running.then(() =>
        this.host.store.bulk(
          { action, selector, limit, cursor: input.cursor ?? null, dryRun: input.dryRun ?? false },
          this.host.now(),
        ),
      );
      this.running = run.catch(() => undefined);
      const result = await run;
      if (result.applied > 0 && (action.kind === 'redrive' || action.kind === 'reschedule' || action.kind === 'shift'))
        // Where the moved jobs went is not known per job: wake the timer, and the selector's topic's consumers.
        this.host.moved(selector.topic === null ? [] : [selector.topic], now);
      // The cancelled jobs' refs are for their events (observed-store.ts), not for the answer.
      return { matched: result.matched, applied: result.applied, next: result.next };
    });
  }

  private actionOf(input: BulkInput, now: EpochMs): BulkAction {
    switch (input.action) {
      case 'cancel':
        if (input.reason !== undefined && input.reason.length > LIMITS.errorMaxLength)
          throw invalid('reason', `at most ${LIMITS.errorMaxLength} characters`);
        return { kind: 'cancel', reason: input.reason ?? null };
      case 'reschedule': {
        if ((input.runAt === undefined) === (input.shiftMs === undefined))
          throw invalid('runAt', 'give either runAt or shiftMs');
        if (input.runAt !== undefined) {
          if (!Number.isSafeInteger(input.runAt) || input.runAt > now + LIMITS.maxDelayMs)
            throw invalid('runAt', 'must be epoch ms at most 10 years ahead');
          return { kind: 'reschedule', runAt: input.runAt };
        }
        const shift = input.shiftMs!;
        const shiftMs = typeof shift === 'number' ? shift : delayIn(shift, 'shiftMs');
        if (!Number.isSafeInteger(shiftMs) || Math.abs(shiftMs) > LIMITS.maxDelayMs)
          throw invalid('shiftMs', 'must be ms (or a duration text) of at most 10 years either way');
        return { kind: 'shift', shiftMs };
      }
      case 'redrive':
        return { kind: 'redrive' };
      case 'delete':
        return { kind: 'delete' };
      default:
        throw invalid('action', 'must be cancel, reschedule, redrive or delete');
    }
  }
}
