import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/config.js';
import { backoffDelayMs, decideFailure } from '../../src/core/retry-policy.js';
import { normalizeRetry } from '../../src/core/job-input.js';

describe('retry policy', () => {
  it('fixed backoff waits the same before every retry', () => {
    expect([1, 2, 5].map((n) => backoffDelayMs({ type: 'fixed', delayMs: 700 }, n))).toEqual([700, 700, 700]);
  });

  it('exponential backoff doubles and is capped', () => {
    const backoff = { type: 'exponential' as const, delayMs: 1000, factor: 2, maxDelayMs: 5000 };
    expect([1, 2, 3, 4, 10].map((n) => backoffDelayMs(backoff, n))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('a list schedule follows its steps and repeats the last one', () => {
    const policy = normalizeRetry('4m,10m,10m,1h,2h,6h,15h', DEFAULT_RETRY_POLICY);
    expect(policy.maxAttempts).toBe(8);
    const m = 60_000;
    expect([1, 2, 3, 4, 5, 6, 7, 9].map((n) => backoffDelayMs(policy.backoff, n))).toEqual([
      4 * m,
      10 * m,
      10 * m,
      60 * m,
      120 * m,
      360 * m,
      900 * m,
      900 * m,
    ]);
  });

  it('retries while attempts remain, then buries', () => {
    const policy = { maxAttempts: 3, backoff: { type: 'fixed' as const, delayMs: 100 } };
    expect(decideFailure(policy, 1, 1000)).toEqual({ action: 'retry', runAt: 1100 });
    expect(decideFailure(policy, 2, 1000)).toEqual({ action: 'retry', runAt: 1100 });
    expect(decideFailure(policy, 3, 1000)).toEqual({ action: 'bury' });
    expect(decideFailure(policy, 1, 1000, { bury: true })).toEqual({ action: 'bury' });
    expect(decideFailure(policy, 1, 1000, { retryDelayMs: 5 })).toEqual({ action: 'retry', runAt: 1005 });
  });

  it('the default allows two retries, as the seeds do', () => {
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBe(3);
  });
});
