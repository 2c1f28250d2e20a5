/**
 * The demo's traffic over time (scripts/console-demo.ts), so the console's charts have figures to draw: the
 * last six hours are replayed on a clock set back, then a little live traffic runs every second. A few topics
 * of the shop, each with its own volume; a slow consumer forty minutes ago (ready jobs pile up and are reserved
 * late, then drained); payment retries that fail now and then (retried a minute later, buried after three
 * attempts). Pseudo-random from a fixed seed, so the pictures look alike from one run to the next.
 */
import { systemClock, type Clock, type TimerHandle } from '../src/core/clock.js';
import type { DelayqService } from '../src/service/service.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * The system clock, set back while the past is replayed. Its timers fire at their time on either clock: when
 * `catchUp` moves it on past them, or after their delay in real time.
 */
export class ReplayClock implements Clock {
  private readonly timers = new Set<{ at: number; fire(): void }>();

  private behindMs: number;

  constructor(behindMs: number) {
    this.behindMs = behindMs;
  }

  now(): number {
    return systemClock.now() - this.behindMs;
  }

  get behind(): number {
    return this.behindMs;
  }

  /** Sets the clock `behindMs` behind the system clock (less than before), firing the timers now due. */
  catchUp(behindMs: number): void {
    this.behindMs = behindMs;
    for (const timer of [...this.timers]) if (timer.at <= this.now()) timer.fire();
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer = {
      at: this.now() + delayMs,
      fire: () => {
        if (!this.timers.delete(timer)) return;
        handle.cancel();
        callback();
      },
    };
    const handle = systemClock.setTimer(() => timer.fire(), delayMs);
    this.timers.add(timer);
    return {
      cancel: () => {
        this.timers.delete(timer);
        handle.cancel();
      },
    };
  }
}

interface Flow {
  topic: string;
  perSecond: number;
  failRatio: number;
}

/** Topics whose jobs no other part of the demo reserves. */
const FLOWS: Flow[] = [
  { topic: 'mail.notify', perSecond: 0.9, failRatio: 0.01 },
  { topic: 'sms.notify', perSecond: 0.45, failRatio: 0.02 },
  { topic: 'invoices.remind', perSecond: 0.3, failRatio: 0 },
  { topic: 'payments.retry', perSecond: 0.2, failRatio: 0.12 },
  { topic: 'carts.remind', perSecond: 0.12, failRatio: 0 },
];

/** mulberry32: a small seeded generator, numbers in [0, 1). */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class DemoTraffic {
  private readonly random = seeded(36);
  private live: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  private readonly service: DelayqService;
  private readonly clock: ReplayClock;

  constructor(service: DelayqService, clock: ReplayClock) {
    this.service = service;
    this.clock = clock;
  }

  /** Replays the time the clock is behind: a step a minute, every ten seconds in the last hour; then it is now. */
  async replay(): Promise<void> {
    for (let behind = this.clock.behind; behind > 0;) {
      const stepMs = behind > HOUR ? MINUTE : 10 * SECOND;
      await this.step(stepMs, behind);
      await this.service.series.sample();
      behind -= stepMs;
      this.clock.catchUp(behind);
      // the timer's promotions of the retries now due, before the next step's consumers come
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await this.service.series.flush();
  }

  /** A step of traffic every second from now on, until `stop`. */
  startLive(): void {
    this.live = setInterval(() => {
      this.running = this.running.then(() => this.step(SECOND, 0)).catch(() => undefined);
    }, SECOND);
  }

  async stop(): Promise<void> {
    clearInterval(this.live);
    await this.running;
  }

  /** `stepMs` of each flow's traffic, `agoMs` before now: pushes, then what its consumer takes and settles. */
  private async step(stepMs: number, agoMs: number): Promise<void> {
    const now = this.clock.now();
    // A slow wave over hours and a faster one over minutes.
    const wave =
      1 + 0.45 * Math.sin((2 * Math.PI * now) / (3 * HOUR)) + 0.25 * Math.sin((2 * Math.PI * now) / (17 * MINUTE));
    for (const flow of FLOWS) {
      const expected = flow.perSecond * (stepMs / SECOND) * wave;
      const pushes = Math.floor(expected + this.random());
      if (pushes > 0)
        await this.service.pushBatch(
          Array.from({ length: pushes }, () => ({
            topic: flow.topic,
            // made due a moment ago: the consumer polls every two seconds
            runAt: now - Math.floor(this.random() * 2 * SECOND),
            retry: { maxAttempts: 3, backoff: { type: 'fixed' as const, delayMs: MINUTE } },
            body: { demo: true },
          })),
        );
      const slow = flow.topic === 'mail.notify' && agoMs <= 40 * MINUTE && agoMs > 25 * MINUTE;
      await this.consume(flow, Math.ceil(flow.perSecond * (stepMs / SECOND) * (slow ? 0.3 : 3)));
    }
  }

  private async consume(flow: Flow, capacity: number): Promise<void> {
    while (capacity > 0) {
      const taken = await this.service.reserve({ topics: [flow.topic], count: Math.min(100, capacity) });
      if (taken.length === 0) return;
      capacity -= taken.length;
      for (const { job, token } of taken) {
        if (this.random() < flow.failRatio)
          await this.service.fail(job.id, token, { error: { message: 'upstream timed out', code: 'TIMEOUT' } });
        else await this.service.finish(job.id, token);
      }
    }
  }
}
