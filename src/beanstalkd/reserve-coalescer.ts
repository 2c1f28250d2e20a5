import type { Reservation } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import type { DelayqService } from '../service/service.js';

interface Ask {
  count: number;
  resolve(r: Reservation[]): void;
  reject(err: unknown): void;
}

/**
 * The reserves of one event-loop turn from the same watch list share one store call (count = the jobs
 * asked for in all) instead of one call each: a burst drained over many consumer connections, or a run of
 * reserves pipelined on one, costs one script run per turn, not per job. Each ask gets at most its count,
 * in the order asked. Only the immediate try goes through here; waiting is per connection.
 */
export class ReserveCoalescer {
  private readonly service: DelayqService;
  private readonly pending = new Map<string, Ask[]>();

  constructor(service: DelayqService) {
    this.service = service;
  }

  /** Up to `count` (≤ LIMITS.reserveMaxCount) ready jobs of `topics`, without waiting. */
  tryReserve(topics: readonly string[], count: number): Promise<Reservation[]> {
    const key = topics.join(' ');
    return new Promise((resolve, reject) => {
      let asks = this.pending.get(key);
      if (!asks) {
        this.pending.set(key, (asks = []));
        setImmediate(() => void this.flush(key, topics));
      }
      asks.push({ count, resolve, reject });
    });
  }

  private async flush(key: string, topics: readonly string[]): Promise<void> {
    const asks = this.pending.get(key)!;
    this.pending.delete(key);
    // The service caps one call's count: more asks share several calls, an ask never split over two.
    let i = 0;
    while (i < asks.length) {
      let count = 0;
      let j = i;
      while (j < asks.length && count + asks[j]!.count <= LIMITS.reserveMaxCount) count += asks[j++]!.count;
      if (j === i) count = asks[j++]!.count;
      const group = asks.slice(i, j);
      i = j;
      try {
        const got = await this.service.reserve({ topics, count });
        let k = 0;
        for (const ask of group) {
          ask.resolve(got.slice(k, k + ask.count));
          k += ask.count;
        }
      } catch (err) {
        for (const ask of group) ask.reject(err);
      }
    }
  }
}
