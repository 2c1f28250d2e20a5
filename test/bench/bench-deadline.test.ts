// A measurement that hangs is given up at its deadline, so a run goes on; one that ends in time is untouched.
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../bench/lib.js';

describe('bench withDeadline', () => {
  it('answers the work when it ends in time, and gives up on work that never ends', async () => {
    expect(await withDeadline(Promise.resolve(7), 1000, 'x')).toBe(7);
    const never = new Promise<number>(() => undefined);
    await expect(withDeadline(never, 50, 'its measurement')).rejects.toThrow(
      'its measurement did not end within 0 s (given up)',
    );
    await expect(withDeadline(Promise.reject(new Error('boom')), 1000, 'x')).rejects.toThrow('boom');
  });
});
