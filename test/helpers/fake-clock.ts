import type { Clock, TimerHandle } from '../../src/core/clock.js';

/** A settable clock: `advance` moves time and fires the timers that came due, in order. */
export class FakeClock implements Clock {
  private time: number;
  private timers: { at: number; seq: number; callback: () => void }[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer = { at: this.time + Math.max(0, delayMs), seq: this.seq++, callback };
    this.timers.push(timer);
    return { cancel: () => (this.timers = this.timers.filter((t) => t !== timer)) };
  }

  /** The time the next timer fires, if any (tests assert the scheduler sleeps until exactly then). */
  get nextTimerAt(): number | undefined {
    return this.timers.reduce<number | undefined>(
      (min, t) => (min === undefined || t.at < min ? t.at : min),
      undefined,
    );
  }

  get pendingTimers(): number {
    return this.timers.length;
  }

  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.callback();
    }
    this.time = target;
  }

  set(at: number): void {
    this.advance(at - this.time);
  }
}
