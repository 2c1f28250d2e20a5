import { describe, expect, it } from 'vitest';
import { checkHistory, type HistoryEvent } from './history-checker.js';

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
    expect(r.redeliveries).toBe(4);
  });
});
