import { describe, expect, it } from 'vitest';
import { checkHistory, serviceGaps, type HistoryEvent } from './history-checker.js';

const push = (id: string, runAt: number, at = 0): HistoryEvent => ({ type: 'push', id, runAt, ttrMs: 1000, at });

describe('history checker', () => {
  it('passes a clean history', () => {
    const r = checkHistory(
      [push('a', 100), { type: 'deliver', id: 'a', at: 105 }, { type: 'finish', id: 'a', at: 110 }],
      { endAt: 5000, graceMs: 1000 },
    );
    expect(r).toMatchObject({
      pushed: 1,
      delivered: 1,
      lost: [],
      early: [],
      duplicates: [],
      resurrected: [],
      deliveredAfterFinish: [],
      resurrectedAfterCancel: [],
    });
  });

  it('finds lost, early, duplicate and resurrected deliveries', () => {
    const r = checkHistory(
      [
        push('lost', 100),
        push('late-enough', 4500), // due within the grace window: not yet lost
        push('early', 500),
        { type: 'deliver', id: 'early', at: 400 },
        push('dup', 100),
        { type: 'deliver', id: 'dup', at: 100 },
        { type: 'deliver', id: 'dup', at: 600 }, // within the 1 s TTR, no failure: a duplicate
        push('ok-redelivery', 100),
        { type: 'deliver', id: 'ok-redelivery', at: 100 },
        { type: 'deliver', id: 'ok-redelivery', at: 1150 }, // after the TTR lapsed: allowed
        push('failed', 100),
        { type: 'deliver', id: 'failed', at: 100 },
        { type: 'fail', id: 'failed', at: 120 },
        { type: 'deliver', id: 'failed', at: 130 }, // after a failure: allowed
        push('zombie', 100),
        { type: 'deliver', id: 'zombie', at: 100 },
        { type: 'finish', id: 'zombie', at: 110 },
        { type: 'deliver', id: 'zombie', at: 2000 },
        push('cancelled', 3000),
        { type: 'cancel', id: 'cancelled', at: 50 },
        push('cancel-zombie', 100),
        { type: 'cancel', id: 'cancel-zombie', at: 150 },
        { type: 'deliver', id: 'cancel-zombie', at: 200 },
      ],
      { endAt: 5000, graceMs: 1000 },
    );
    expect(r.lost).toEqual(['lost']);
    expect(r.early).toEqual([{ id: 'early', byMs: 100 }]);
    expect(r.duplicates).toEqual(['dup']);
    expect(r.resurrected).toEqual(['cancel-zombie', 'zombie']);
    expect(r.deliveredAfterFinish).toEqual(['zombie']);
    expect(r.resurrectedAfterCancel).toEqual(['cancel-zombie']);
    expect(r.redeliveries).toBe(4);
  });

  it('measures time without service: gaps between acknowledged pushes, and due jobs waiting with no delivery', () => {
    const g = serviceGaps([
      push('a', 100, 0),
      push('b', 150, 100),
      push('c', 1200, 200),
      push('d', 1300, 1700), // no push acknowledged for 1.5 s
      push('e', 1300, 1800),
      { type: 'deliver', id: 'a', at: 100 },
      { type: 'deliver', id: 'b', at: 160 },
      // nothing due waits until c's runAt 1200; c and d then wait until 3200
      { type: 'deliver', id: 'c', at: 3200 },
      { type: 'deliver', id: 'd', at: 3210 },
      push('x', 3000, 300),
      { type: 'cancel', id: 'x', at: 400 }, // a cancelled job owed nothing
      { type: 'deliver', id: 'e', at: 3300 },
    ]);
    expect(g.pushGapMs).toBe(1400);
    expect(g.pushGapFrom).toBe(300);
    expect(g.deliveryGapMs).toBe(2000);
    expect(g.deliveryGapFrom).toBe(1200);
  });

  it('sees no gap in a history served on time', () => {
    const g = serviceGaps([
      push('a', 100, 0),
      push('b', 200, 50),
      { type: 'deliver', id: 'a', at: 101 },
      { type: 'deliver', id: 'b', at: 203 },
    ]);
    expect(g).toEqual({ pushGapMs: 50, pushGapFrom: 0, deliveryGapMs: 3, deliveryGapFrom: 200 });
  });
});
