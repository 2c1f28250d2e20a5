import { describe, expect, it } from 'vitest';
import { spreadOffsetMs } from '../../src/core/spread.js';
import { newJobId } from '../../src/core/ids.js';

/** Jobs per 1 s bucket of a 10 s window, for these ids. */
function buckets(ids: readonly string[], spreadMs = 10_000): number[] {
  const counts = new Array<number>(spreadMs / 1000).fill(0);
  for (const id of ids) counts[Math.floor(spreadOffsetMs(id, spreadMs) / 1000)]!++;
  return counts;
}

describe('spreadOffsetMs', () => {
  it('is an offset in [0, spreadMs), the same for the same id', () => {
    for (const spreadMs of [2, 7, 1000, 10_000, 86_400_000]) {
      for (let i = 0; i < 200; i++) {
        const offset = spreadOffsetMs(`order-${i}`, spreadMs);
        expect(Number.isInteger(offset) && offset >= 0 && offset < spreadMs).toBe(true);
        expect(spreadOffsetMs(`order-${i}`, spreadMs)).toBe(offset);
      }
    }
    expect(spreadOffsetMs('order-1', 0)).toBe(0);
    expect(spreadOffsetMs('order-1', 1)).toBe(0);
  });

  it('spreads 1000 consecutive ids evenly: no 1 s bucket of 10 s holds more than twice the mean', () => {
    const counts = buckets(Array.from({ length: 1000 }, (_, i) => `invoice-${i}`));
    expect(Math.max(...counts)).toBeLessThanOrEqual(200);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(50);
  });

  it('spreads generated ids evenly too', () => {
    const counts = buckets(Array.from({ length: 1000 }, () => newJobId(Date.UTC(2026, 0, 1))));
    expect(Math.max(...counts)).toBeLessThanOrEqual(200);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(50);
  });

  it('gives ids that differ in one character different offsets', () => {
    const offsets = new Set(Array.from({ length: 100 }, (_, i) => spreadOffsetMs(`a${i}`, 86_400_000)));
    expect(offsets.size).toBe(100);
  });
});
