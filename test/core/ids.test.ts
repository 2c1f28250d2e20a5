import { describe, expect, it } from 'vitest';
import { newJobId, newToken, newTokenBase } from '../../src/core/ids.js';

describe('ids drawn from the shared random pool', () => {
  it('gives tokens of 24 and token bases of 16 hex digits, never the same twice across pool refills', () => {
    const seen = new Set<string>();
    // 3000 × (12 + 8) bytes is ≈ 15 refills of the 4 KiB pool, interleaved with ULIDs drawing from it too.
    for (let i = 0; i < 3000; i++) {
      const token = newToken();
      const base = newTokenBase();
      expect(token).toMatch(/^[0-9a-f]{24}$/);
      expect(base).toMatch(/^[0-9a-f]{16}$/);
      expect(seen.has(token) || seen.has(base)).toBe(false);
      seen.add(token);
      seen.add(base);
      newJobId(Date.now());
    }
  });

  it('keeps job ids unique and ordered within one millisecond', () => {
    const now = Date.now();
    const ids = Array.from({ length: 1000 }, () => newJobId(now));
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
  });
});
