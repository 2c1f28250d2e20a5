import type { Reservation } from '../core/job.js';
import type { DelayqService } from '../service/service.js';

interface Ask {
  resolve(r: Reservation | undefined): void;
  reject(err: unknown): void;
}

/**
 * Connections that try to reserve from the same watch list in one event-loop turn share one store call
 * (count = how many asked) instead of one call each: a burst drained over many consumer connections costs
 * one script run per turn, not per job. Only the immediate try goes through here; waiting is per connection.
 */
export class ReserveCoalescer {
  private readonly service: DelayqService;
  private readonly pending = new Map<string, Ask[]>();

  constructor(service: DelayqService) {
    this.service = service;
  }

  /** One ready job of `topics`, if any, without waiting. */
  tryReserve(topics: readonly string[]): Promise<Reservation | undefined> {
    const key = topics.join(' ');
    return new Promise((resolve, reject) => {
      let asks = this.pending.get(key);
      if (!asks) {
        this.pending.set(key, (asks = []));
        setImmediate(() => void this.flush(key, topics));
      }
      asks.push({ resolve, reject });
    });
  }

  private async flush(key: string, topics: readonly string[]): Promise<void> {
    const asks = this.pending.get(key)!;
    this.pending.delete(key);
    // The service caps one call at 100 jobs; more askers share several calls.
    for (let i = 0; i < asks.length; i += 100) {
      const group = asks.slice(i, i + 100);
      try {
        const got = await this.service.reserve({ topics, count: group.length });
        group.forEach((ask, k) => ask.resolve(got[k]));
      } catch (err) {
        for (const ask of group) ask.reject(err);
      }
    }
  }
}
