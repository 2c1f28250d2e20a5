import type { EpochMs } from './clock.js';
import type { Backoff, RetryPolicy } from './job.js';

/** Wait before retry number `retry` (1 = the first retry). */
export function backoffDelayMs(backoff: Backoff, retry: number): number {
  const n = Math.max(1, retry);
  switch (backoff.type) {
    case 'fixed':
      return backoff.delayMs;
    case 'exponential':
      return Math.min(backoff.maxDelayMs, Math.round(backoff.delayMs * backoff.factor ** (n - 1)));
    case 'list':
      return backoff.delaysMs[Math.min(n, backoff.delaysMs.length) - 1] ?? 0;
  }
}

export type FailureDecision = { action: 'retry'; runAt: EpochMs } | { action: 'bury' };

/**
 * What to do with a reserved job whose delivery failed (consumer fail, TTR lapse, sink error).
 * `attempts` counts the delivery that just failed. Pure: the store only applies the answer.
 */
export function decideFailure(
  policy: RetryPolicy,
  attempts: number,
  now: EpochMs,
  override?: { retryDelayMs?: number | undefined; bury?: boolean | undefined },
): FailureDecision {
  if (override?.bury === true || attempts >= policy.maxAttempts) return { action: 'bury' };
  const delayMs = override?.retryDelayMs ?? backoffDelayMs(policy.backoff, attempts);
  return { action: 'retry', runAt: now + delayMs };
}
