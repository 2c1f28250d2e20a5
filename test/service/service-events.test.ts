import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JobEvent } from '../../src/core/job-event.js';
import { DelayqService } from '../../src/service/service.js';
import type { ServiceJobEvent, StoreCallEvent } from '../../src/service/service-events.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../helpers/fake-clock.js';

describe('service.events', () => {
  let clock: FakeClock;
  let service: DelayqService;
  let events: ServiceJobEvent[];
  let calls: StoreCallEvent[];

  beforeEach(async () => {
    clock = new FakeClock();
    service = new DelayqService({
      store: new SqliteStore({ path: ':memory:', nodeId: 'ev' }),
      nodeId: 'ev',
      clock,
      runTimer: false,
    });
    events = [];
    calls = [];
    service.events.on('job', (e) => events.push(e));
    service.events.on('storeCall', (c) => calls.push(c));
    await service.start();
  });
  afterEach(async () => {
    await service.close();
  });

  it('reports each transition with its topic, id, time and due time', async () => {
    const start = clock.now();
    const { job } = await service.push({ id: 'a', topic: 'mail', delayMs: 1000 });
    await service.push({ id: 'a', topic: 'mail', delayMs: 1000 }); // not created: no event
    clock.advance(1500);
    const promoted = await service.store.promoteDue(clock.now(), 10);
    expect(promoted.count).toBe(1);
    const [r] = await service.reserve({ topics: ['mail'] });
    await service.fail('a', r!.token, { retryDelayMs: 0 });
    const [again] = await service.reserve({ topics: ['mail'] });
    await service.fail('a', again!.token, { bury: true });
    expect(await service.redrive({ ids: ['a'] })).toBe(1);
    const [third] = await service.reserve({ topics: ['mail'] });
    await service.finish('a', third!.token);
    await service.push({ id: 'b', topic: 'mail' });
    await service.cancel('b');

    expect(events.map((e) => e.event)).toEqual([
      'push',
      'promote',
      'reserve',
      'retry',
      'reserve',
      'bury',
      'redrive',
      'reserve',
      'finish',
      'push',
      'cancel',
    ]);
    expect(events[0]).toEqual({ event: 'push', topic: 'mail', id: 'a', at: start, dueAt: job.runAt });
    expect(events[1]).toMatchObject({ event: 'promote', topic: 'mail', count: 1, at: start + 1500 });
    expect(events[2]).toMatchObject({ event: 'reserve', id: 'a', dueAt: start + 1000, readyAt: start + 1500 });
    expect(events[6]).toMatchObject({ event: 'redrive', topic: 'mail', id: 'a' });
    expect(calls.some((c) => c.operation === 'reserve' && c.ok && c.durationMs >= 0)).toBe(true);
  });

  it('reports a long-poll wait and what it got', async () => {
    const waits: number[] = [];
    service.events.on('reserveWait', (w) => waits.push(w.count));
    const waiting = service.reserve({ topics: ['lp'], waitMs: 5000 });
    await service.push({ topic: 'lp' });
    expect(await waiting).toHaveLength(1);
    expect(waits).toEqual([1]);
  });

  it('an expiry met by reserve is an `expired` job event, as one met by the timer is', async () => {
    const followed: JobEvent[] = [];
    const stop = await service.jobEvents.follow({ topic: 'ttl' }, null, (e) => followed.push(e));
    await service.push({ id: 'stale', topic: 'ttl', ttlMs: 100 });
    await service.push({ id: 'fresh', topic: 'ttl', ttlMs: 60_000 });
    clock.advance(200);
    // The timer does not run here (runTimer: false): reserve is the one that meets the lapsed ttl.
    const got = await service.reserve({ topics: ['ttl'], count: 10 });
    expect(got.map((r) => r.job.id)).toEqual(['fresh']);
    expect(events.filter((e) => e.event === 'expire')).toEqual([
      { event: 'expire', topic: 'ttl', id: 'stale', at: clock.now() },
    ]);
    await vi.waitFor(() => expect(followed.map((e) => `${e.event}:${e.id}`)).toEqual(['expired:stale']));
    stop();
  });
});
