import { describe, expect, it } from 'vitest';
import { ReadyWaiters } from '../../src/timer/ready-waiters.js';

describe('ReadyWaiters', () => {
  it('wakes the waiters of a notified topic only', async () => {
    const waiters = new ReadyWaiters();
    const a = waiters.wait(['a'], 10_000);
    const b = waiters.wait(['b', 'c'], 50);
    expect(waiters.size).toBe(2);
    waiters.notify(['a']);
    expect(await a).toBe('notified');
    expect(await b).toBe('timeout');
    expect(waiters.size).toBe(0);
  });

  it('does not miss a notification that came between a failed reserve and the wait', async () => {
    const waiters = new ReadyWaiters();
    const seen = waiters.epoch;
    waiters.notify(['a']); // jobs became ready while the reserve was still answering "nothing"
    const started = Date.now();
    expect(await waiters.wait(['a'], 10_000, undefined, seen)).toBe('notified');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('releases a waiter whose signal aborts', async () => {
    const waiters = new ReadyWaiters();
    const controller = new AbortController();
    const waiting = waiters.wait(['a'], 10_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe('aborted');
    expect(waiters.size).toBe(0);
  });
});
