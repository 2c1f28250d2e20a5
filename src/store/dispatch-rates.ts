import type { EpochMs } from '../core/clock.js';
import type { RateLimit } from '../core/topic-settings.js';

/** What a take answers: the tokens it got, and how long until the bucket holds a whole token again. */
export interface RateTake {
  /** Jobs that may be handed out now, 0 to `want`. */
  granted: number;
  /** 0 when a token is left after this take; else the ms until the next one. */
  waitMs: number;
}

/**
 * The token buckets of topics' dispatch rate limits (docs/flow-control.md): one bucket per topic, shared by
 * every process on the store (on Redis one key per topic, refilled by Redis TIME; embedded, in this
 * process). A bucket starts full and holds at most `limit.burst` tokens; it gains `limit.perSecond` a second.
 */
export interface DispatchRates {
  /** Takes up to `want` whole tokens from the topic's bucket. */
  take(topic: string, limit: RateLimit, want: number, now: EpochMs): Promise<RateTake>;
  /** Puts back tokens a take got and did not use (no ready job for them), up to the burst. */
  giveBack(topic: string, limit: RateLimit, count: number, now: EpochMs): Promise<void>;
}
