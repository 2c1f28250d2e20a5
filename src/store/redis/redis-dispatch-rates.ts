import type { RateLimit } from '../../core/topic-settings.js';
import type { DispatchRates, RateTake } from '../dispatch-rates.js';
import type { Guard } from './redis-extras.js';
import { runScript } from './scripts.js';

/**
 * Topics' dispatch token buckets on Redis (lua/take-dispatch-tokens.lua), one key per topic under a hash tag
 * of its own, refilled by Redis TIME: every process on this Redis shares each bucket. `now` is not used.
 *   {prefix:rate:<topic>}   hash  tokens, at (epoch ms of the last refill)
 */
export class RedisDispatchRates implements DispatchRates {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private run(topic: string, limit: RateLimit, want: number, back: number): Promise<RateTake> {
    return this.guard(async (c) => {
      const [granted, waitMs] = (await runScript(
        c,
        'take-dispatch-tokens',
        [`{${this.prefix()}:rate:${topic}}`],
        [limit.perSecond, limit.burst, want, back],
      )) as [number, number];
      return { granted, waitMs };
    });
  }

  take(topic: string, limit: RateLimit, want: number): Promise<RateTake> {
    return this.run(topic, limit, want, 0);
  }

  async giveBack(topic: string, limit: RateLimit, count: number): Promise<void> {
    await this.run(topic, limit, 0, count);
  }
}
