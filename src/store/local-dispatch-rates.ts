import type { EpochMs } from '../core/clock.js';
import type { RateLimit } from '../core/topic-settings.js';
import type { DispatchRates, RateTake } from './dispatch-rates.js';

interface Bucket {
  tokens: number;
  at: EpochMs;
}

/** The token buckets of a store only this process uses (the embedded SQLite store): in memory, on `now`. */
export class LocalDispatchRates implements DispatchRates {
  private readonly buckets = new Map<string, Bucket>();

  private refilled(topic: string, limit: RateLimit, now: EpochMs): Bucket {
    const bucket = this.buckets.get(topic) ?? { tokens: limit.burst, at: now };
    if (now > bucket.at) {
      bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.at) * limit.perSecond) / 1000);
      bucket.at = now;
    }
    bucket.tokens = Math.min(bucket.tokens, limit.burst);
    this.buckets.set(topic, bucket);
    return bucket;
  }

  async take(topic: string, limit: RateLimit, want: number, now: EpochMs): Promise<RateTake> {
    const bucket = this.refilled(topic, limit, now);
    const granted = Math.max(0, Math.min(want, Math.floor(bucket.tokens)));
    bucket.tokens -= granted;
    const waitMs = bucket.tokens >= 1 ? 0 : Math.ceil(((1 - bucket.tokens) * 1000) / limit.perSecond);
    return { granted, waitMs };
  }

  async giveBack(topic: string, limit: RateLimit, count: number, now: EpochMs): Promise<void> {
    const bucket = this.refilled(topic, limit, now);
    bucket.tokens = Math.min(limit.burst, bucket.tokens + count);
  }
}
