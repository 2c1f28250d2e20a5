/** Epoch milliseconds. Every absolute time in delayq is one of these, and its name ends in `At`. */
export type EpochMs = number;

/**
 * Time as the timer sees it. Injected everywhere so tests run on a fake clock without sleeping:
 * `now()` reads the time, `setTimer` arms a one-shot wake-up.
 */
export interface Clock {
  now(): EpochMs;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
}

export interface TimerHandle {
  cancel(): void;
}

/** Node's largest setTimeout delay; longer sleeps are capped (the timer re-arms on wake-up). */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/**
 * Wall-clock time that ignores steps. It reads the wall clock once, then advances with the monotonic clock
 * (`performance.now()`, CLOCK_MONOTONIC), which NTP slews but never steps. A wall-clock step while delayq
 * runs (an operator's `date -s`, a VM resume, a bad NTP server) therefore neither fires jobs early nor
 * lapses every reservation at once; the corrected time is picked up at the next start.
 * docs/operations.md explains the trade-off.
 */
export function steadyClock(): Clock {
  const wallAtStart = Date.now();
  const monoAtStart = performance.now();
  return {
    now: () => wallAtStart + Math.floor(performance.now() - monoAtStart),
    setTimer(callback, delayMs) {
      const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
      return { cancel: () => clearTimeout(handle) };
    },
  };
}

/** The process's clock: one steady clock shared by everything in the process. */
export const systemClock: Clock = steadyClock();

/** Milliseconds the wall clock has moved away from the steady clock (for health reports and logs). */
export function wallClockSkewMs(clock: Clock = systemClock): number {
  return Date.now() - clock.now();
}
