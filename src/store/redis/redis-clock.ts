import { systemClock, type Clock, type EpochMs, type TimerHandle } from '../../core/clock.js';

/** Anything that answers Redis TIME (a standalone, Sentinel or Cluster client). */
export interface TimeSource {
  time(): Promise<[string | number, string | number]> | Promise<unknown>;
}

/**
 * "The server's clock rules": every delayq process on one Redis stamps `now` with Redis's clock, not its
 * own, so a job due at T is due at T for all of them even when their hosts drift apart. It keeps the offset
 * to Redis `TIME` (sampled when the store opens and every `resampleMs`, halving the round trip) and adds
 * it to the local clock, so reading the time costs no round trip. Timers still run on the local clock:
 * only the offset is borrowed. On a Cluster, TIME comes from one master; keep the masters NTP-synced.
 */
export class RedisClock implements Clock {
  private offsetMs = 0;
  private interval: NodeJS.Timeout | undefined;
  private readonly source: () => TimeSource | undefined;
  private readonly resampleMs: number;

  constructor(source: () => TimeSource | undefined, resampleMs = 30_000) {
    this.source = source;
    this.resampleMs = resampleMs;
  }

  /** Local clock minus Redis's, in ms (positive: Redis is ahead). */
  get offset(): number {
    return this.offsetMs;
  }

  now(): EpochMs {
    return Math.round(Date.now() + this.offsetMs);
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    return systemClock.setTimer(callback, delayMs);
  }

  /** Samples Redis TIME once; a failed sample keeps the last offset. */
  async sync(): Promise<void> {
    const source = this.source();
    if (!source) return;
    const sentAt = Date.now();
    const [seconds, micros] = (await source.time()) as [string | number, string | number];
    const receivedAt = Date.now();
    const serverMs = Number(seconds) * 1000 + Number(micros) / 1000;
    this.offsetMs = serverMs - (sentAt + receivedAt) / 2;
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
