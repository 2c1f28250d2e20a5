import type { EpochMs } from '../core/clock.js';
import type { RateLimit } from '../core/topic-settings.js';
import type { DispatchRates, RateTake } from './dispatch-rates.js';
import { msToWholeToken, tokensAt, type TokenBucket } from './token-bucket.js';

/** The token buckets of a store only this process uses (the embedded SQLite store): in memory, on `now`. */
export class LocalDispatchRates implements DispatchRates {
  private readonly buckets = new Map<string, TokenBucket>();

  private refilled(topic: string, limit: RateLimit, now: EpochMs): TokenBucket {
    const last = this.buckets.get(topic);
    // A clock that stepped back refills nothing and does not move the bucket's time back.
    const bucket = { tokens: tokensAt(last, limit, now), at: Math.max(now, last?.at ?? now) };
    this.buckets.set(topic, bucket);
    return bucket;
  }

  async take(topic: string, limit: RateLimit, want: number, now: EpochMs): Promise<RateTake> {
    const bucket = this.refilled(topic, limit, now);
    const granted = Math.max(0, Math.min(want, Math.floor(bucket.tokens)));
    bucket.tokens -= granted;
    return { granted, waitMs: msToWholeToken(bucket.tokens, limit) };
  }

  async giveBack(topic: string, limit: RateLimit, count: number, now: EpochMs): Promise<void> {
    const bucket = this.refilled(topic, limit, now);
    bucket.tokens = Math.min(limit.burst, bucket.tokens + count);
  }
}
