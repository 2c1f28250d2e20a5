/** Epoch milliseconds. Every absolute time in delayq is one of these, and its name ends in `At`. */
export type EpochMs = number;

/**
 * Time as the scheduler sees it. Injected everywhere so tests run on a fake clock without sleeping:
 * `now()` reads the time, `setTimer` arms a one-shot wake-up.
 */
export interface Clock {
  now(): EpochMs;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
}

export interface TimerHandle {
  cancel(): void;
}

/** Node's largest setTimeout delay; longer sleeps are capped (the scheduler re-arms on wake-up). */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
    return { cancel: () => clearTimeout(handle) };
  },
};
