import { describe, expect, it } from 'vitest';
import { steadyClock } from '../../src/core/clock.js';

describe('steadyClock', () => {
  it('starts at wall time and advances with it', async () => {
    const clock = steadyClock();
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(50);
    const before = clock.now();
    await new Promise((r) => setTimeout(r, 30)); // lets wall time pass: the clock under test must follow it
    expect(clock.now() - before).toBeGreaterThanOrEqual(25);
  });

  it('never goes backwards', () => {
    const clock = steadyClock();
    let last = clock.now();
    for (let i = 0; i < 10_000; i++) {
      const now = clock.now();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
  });

  it('fires a timer after its delay', async () => {
    const clock = steadyClock();
    const started = clock.now();
    await new Promise<void>((resolve) => clock.setTimer(resolve, 20));
    expect(clock.now() - started).toBeGreaterThanOrEqual(19);
  });
});
