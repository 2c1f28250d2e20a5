import { systemClock, type Clock, type EpochMs, type TimerHandle } from '../../core/clock.js';

/** Anything that answers Redis TIME (a standalone, Sentinel or Cluster client). */
export interface TimeSource {
  time(): Promise<[string | number, string | number]> | Promise<unknown>;
}

/**
 * "The server's clock rules": every delayq process on one Redis stamps `now` with Redis's clock, not its
 * own, so a job due at T is due at T for all of them even when their hosts drift apart. It keeps the offset
 * to Redis `TIME` (sampled when the store opens and every `resampleMs`, erring late) and adds
 * it to the local monotonic clock (`performance.now()`), so reading the time costs no round trip. Not Date.now(): a
 * wall-clock step on this host would shift `now` until the next resample, firing delayed jobs early and
 * lapsing every reservation (test/chaos/clock-step.test.ts). Timers still run on the local clock: only the
 * offset is borrowed. On a Cluster, TIME comes from one master; keep the masters NTP-synced.
 */
export class RedisClock implements Clock {
  /** Until the first sync: the wall clock, read once. */
  private offsetMs = Date.now() - performance.now();
  private interval: NodeJS.Timeout | undefined;
  private readonly source: () => TimeSource | undefined;
  private readonly resampleMs: number;

  constructor(source: () => TimeSource | undefined, resampleMs = 30_000) {
    this.source = source;
    this.resampleMs = resampleMs;
  }

  /** Redis's clock minus the local monotonic clock (performance.now()), in ms. */
  get offset(): number {
    return this.offsetMs;
  }

  /**
   * The monotonic clock at sub-ms precision plus the offset, rounded down: `now` may lag Redis's clock by
   * the best sample's round trip (well under a ms here), never run ahead of it.
   */
  now(): EpochMs {
    return Math.floor(performance.now() + this.offsetMs);
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    return systemClock.setTimer(callback, delayMs);
  }

  /**
   * Samples Redis TIME a few times and keeps the sample with the shortest round trip; a failed sync keeps
   * the last offset. Redis read its clock somewhere between sending and receiving: taking the receive
   * instant (not the midpoint) errs late, so a job is never promoted before its due time by Redis's
   * clock (the midpoint let a delivery arrive 1 ms early in test/chaos/redis-wipe.test.ts). The shortest
   * round trip bounds how late: one sample taken while the event loop was busy could lag by tens of ms.
   */
  async sync(samples = 5, maxSamples = 20): Promise<void> {
    const source = this.source();
    if (!source) return;
    let best: { rtt: number; offset: number } | undefined;
    // A busy host (a process just restarted, JIT still warming) can slow every one of the first few
    // round trips: keep sampling, up to maxSamples, until one came back within a millisecond.
    for (let i = 0; i < maxSamples && (i < samples || best!.rtt > 1); i++) {
      const sentAt = performance.now();
      const [seconds, micros] = (await source.time()) as [string | number, string | number];
      const receivedAt = performance.now();
      const rtt = receivedAt - sentAt;
      if (!best || rtt < best.rtt) best = { rtt, offset: Number(seconds) * 1000 + Number(micros) / 1000 - receivedAt };
    }
    this.offsetMs = best!.offset;
  }

  start(): void {
    if (this.interval) return;
    this.interval = setInterval(() => void this.sync().catch(() => undefined), this.resampleMs);
    this.interval.unref();
  }

  stop(): void {
    clearInterval(this.interval);
    this.interval = undefined;
  }
}
