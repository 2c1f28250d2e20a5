import { describe, expect, it } from 'vitest';
import type { JobEvent, NewJobEvent } from '../../src/core/job-event.js';
import { LocalJobEventLog } from '../../src/store/local-job-event-log.js';

const finished = (id: string): NewJobEvent => ({
  event: 'finished',
  id,
  topic: 't',
  at: 1,
  result: null,
  error: null,
});

async function replay(log: LocalJobEventLog, afterId: string): Promise<string[]> {
  const heard: JobEvent[] = [];
  const stop = await log.follow(afterId, (e) => heard.push(e));
  stop();
  return heard.map((e) => `${e.eventId}:${e.id}`);
}

describe('LocalJobEventLog', () => {
  it('keeps the last `capacity` events in order once the ring has wrapped, and resumes after any of them', async () => {
    const log = new LocalJobEventLog(3);
    log.append(['a', 'b', 'c', 'd'].map(finished));
    log.append([finished('e')]);
    expect(await replay(log, '0')).toEqual(['3:c', '4:d', '5:e']);
    expect(await replay(log, '4')).toEqual(['5:e']);
    log.append([finished('f'), finished('g')]);
    expect(await replay(log, '3')).toEqual(['5:e', '6:f', '7:g']);
  });

  it('hands live events to followers after the replayed ones', async () => {
    const log = new LocalJobEventLog(2);
    log.append(['a', 'b', 'c'].map(finished));
    const heard: string[] = [];
    const stop = await log.follow('1', (e) => heard.push(e.id));
    log.append([finished('d')]);
    stop();
    log.append([finished('e')]);
    expect(heard).toEqual(['b', 'c', 'd']);
  });
});
