import { describe, expect, it } from 'vitest';
import { LocalJobEventLog } from '../../src/store/local-job-event-log.js';

const events = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    event: 'finished' as const,
    id: `job-${from + i}`,
    topic: 't',
    at: from + i,
    result: null,
    error: null,
  }));

describe('LocalJobEventLog', () => {
  it('keeps the last `capacity` events in order once the ring has wrapped', async () => {
    const log = new LocalJobEventLog(100);
    log.append(events(1, 170));
    log.append(events(171, 250));
    const seen: string[] = [];
    const stop = await log.follow('0', (event) => seen.push(event.id));
    stop();
    expect(seen).toEqual(events(151, 250).map((e) => e.id));
  });

  it('replays only the events after the one a follower names, then the new ones as they come', async () => {
    const log = new LocalJobEventLog(100);
    log.append(events(1, 120));
    const seen: { id: string; eventId: string }[] = [];
    const stop = await log.follow('115', (event) => seen.push({ id: event.id, eventId: event.eventId }));
    log.append(events(121, 121));
    stop();
    expect(seen.map((e) => e.eventId)).toEqual(['116', '117', '118', '119', '120', '121']);
    expect(seen.at(-1)).toEqual({ id: 'job-121', eventId: '121' });
  });
});
