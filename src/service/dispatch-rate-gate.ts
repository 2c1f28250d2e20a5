import type { EpochMs } from '../core/clock.js';
import type { Reservation } from '../core/job.js';
import type { DispatchRates } from '../store/dispatch-rates.js';
import type { TopicSettingsFollower } from '../timer/topic-settings-follower.js';

/** One store reserve over some topics (Store.reserve's reservations). */
export type ReserveCall = (topics: readonly string[], count: number) => Promise<Reservation[]>;

/**
 * Reserve within topics' dispatch rate limits (docs/flow-control.md): before a reserve, each rate-limited
 * topic's bucket gives up to `count` tokens; a topic with none is left out of this try (its jobs stay ready),
 * one with fewer than `count` is reserved on its own for at most its tokens, and tokens not used (no ready
 * job) go back. Topics without a limit cost no store call here. It also tells a waiting reserve when the
 * next token of a topic it was refused comes, so the wait ends then instead of polling.
 */
export class DispatchRateGate {
  private readonly rates: DispatchRates;
  private readonly settings: TopicSettingsFollower;
  /** Topics whose last take got no token → when (performance.now()) their next token is due. */
  private readonly refusedUntil = new Map<string, number>();

  constructor(rates: DispatchRates, settings: TopicSettingsFollower) {
    this.rates = rates;
    this.settings = settings;
  }

  async reserve(topics: readonly string[], count: number, now: EpochMs, reserve: ReserveCall): Promise<Reservation[]> {
    const limited = topics.filter((t) => this.settings.rateLimitOf(t) !== undefined);
    if (limited.length === 0) return reserve(topics, count);
    const allowance = new Map<string, number>();
    await Promise.all(
      limited.map(async (topic) => {
        const take = await this.rates.take(topic, this.settings.rateLimitOf(topic)!, count, now);
        allowance.set(topic, take.granted);
        if (take.granted === 0) this.refusedUntil.set(topic, performance.now() + take.waitMs);
        else this.refusedUntil.delete(topic);
      }),
    );
    const full = topics.filter((t) => (allowance.get(t) ?? count) >= count);
    const partial = limited.filter((t) => allowance.get(t)! > 0 && allowance.get(t)! < count);
    let got: Reservation[] = [];
    try {
      if (full.length) got = await reserve(full, count);
      for (const topic of partial) {
        if (got.length >= count) break;
        got = got.concat(await reserve([topic], Math.min(allowance.get(topic)!, count - got.length)));
      }
    } finally {
      await this.giveBackUnused(limited, allowance, got, now);
    }
    return got;
  }

  private async giveBackUnused(
    limited: readonly string[],
    allowance: ReadonlyMap<string, number>,
    got: readonly Reservation[],
    now: EpochMs,
  ): Promise<void> {
    const used = new Map<string, number>();
    for (const r of got) used.set(r.job.topic, (used.get(r.job.topic) ?? 0) + 1);
    await Promise.all(
      limited.map(async (topic) => {
        const unused = allowance.get(topic)! - (used.get(topic) ?? 0);
        const limit = this.settings.rateLimitOf(topic);
        // A token not given back only slows the topic until its bucket refills: never worth failing a reserve.
        if (unused > 0 && limit) await this.rates.giveBack(topic, limit, unused, now).catch(() => undefined);
      }),
    );
  }

  /** Ms until the next token of one of these topics that the last try got none of; null: none was refused. */
  nextTokenInMs(topics: readonly string[]): number | null {
    let soonest: number | null = null;
    const at = performance.now();
    for (const topic of topics) {
      const until = this.refusedUntil.get(topic);
      if (until === undefined) continue;
      if (this.settings.rateLimitOf(topic) === undefined) {
        this.refusedUntil.delete(topic);
        continue;
      }
      const ms = Math.max(0, until - at);
      soonest = soonest === null ? ms : Math.min(soonest, ms);
    }
    return soonest;
  }
}
