import type { EpochMs } from '../core/clock.js';
import type { RateLimit } from '../core/topic-settings.js';

/** A token bucket as last written: its tokens at `at`. */
export interface TokenBucket {
  tokens: number;
  at: EpochMs;
}

/** The bucket's tokens at `now`: refilled at the limit's rate since it was written, at most the burst; full when new. */
export function tokensAt(bucket: TokenBucket | undefined, limit: RateLimit, now: EpochMs): number {
  if (!bucket) return limit.burst;
  return Math.min(limit.burst, bucket.tokens + (Math.max(0, now - bucket.at) * limit.perSecond) / 1000);
}

/** Ms until a bucket holding `tokens` has a whole one (0 when it has). */
export function msToWholeToken(tokens: number, limit: RateLimit): number {
  return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 1000) / limit.perSecond);
}
