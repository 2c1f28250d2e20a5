import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DueTimer } from '../../src/timer/due-timer.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('sched');
afterAll(() => prefixes.sweep());

// SQLite answers promoteDue alone and the scheduler asks for the rest (lapsed, expiry, next wake-up);
// Redis reports the wake-up heads with the promote (one partition) or with due-scores and promote (more),
// and the scheduler skips those calls.
const stores: [string, () => Store][] = [
  ['SQLite', () => new SqliteStore({ path: ':memory:', nodeId: 'sched-test' })],
  [
    'Redis, 1 partition: promote reports the heads',
    () =>
      new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), nodeId: 'sched-test', partitions: 1 }),
  ],
  [
    'Redis, 4 partitions: heads merged from due-scores and promote',
    () =>
      new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), nodeId: 'sched-test', partitions: 4 }),
  ],
];

describe.each(stores)('DueTimer (fake clock) on %s', (_name, makeStore) => {
  let clock: FakeClock;
  let store: Store;
  let scheduler: DueTimer;
  let readyEvents: string[][];
  let errors: unknown[];
  const T0 = Date.UTC(2026, 0, 1);

  beforeEach(async () => {
    clock = new FakeClock(T0);
    store = makeStore();
    await store.open();
    readyEvents = [];
    errors = [];
    scheduler = new DueTimer(
      store,
      clock,
      { onReady: (topics) => readyEvents.push([...topics]), onError: (err) => errors.push(err) },
      { safetyWakeMs: 60_000, batchSize: 100 },
    );
  });
  afterEach(async () => {
    await scheduler.stop();
    await store.close();
  });

  const advance = async (ms: number) => {
    clock.advance(ms);
    await scheduler.settled();
  };

  it('sleeps until exactly the earliest due time, then promotes and wakes consumers', async () => {
    await store.pushMany(
      [aJob({ now: T0, delayMs: 5000, topic: 'a' }), aJob({ now: T0, delayMs: 9000, topic: 'b' })],
      T0,
    );
    scheduler.start();
    await scheduler.settled();
    expect(clock.nextTimerAt).toBe(T0 + 5000);
    expect(clock.pendingTimers).toBe(1);
    await advance(4999);
    expect(readyEvents).toEqual([]);
    await advance(1);
    expect(readyEvents).toEqual([['a']]);
    expect(clock.nextTimerAt).toBe(T0 + 9000);
    await advance(4000);
    expect(readyEvents).toEqual([['a'], ['b']]);
  });

  it('with nothing to do it sleeps for the safety interval, not a busy loop', async () => {
    scheduler.start();
    await scheduler.settled();
    expect(clock.nextTimerAt).toBe(T0 + 60_000);
    expect(clock.pendingTimers).toBe(1);
  });

  it('is woken early when an earlier job arrives', async () => {
    await store.pushMany([aJob({ now: T0, delayMs: 50_000 })], T0);
    scheduler.start();
    await scheduler.settled();
    expect(clock.nextTimerAt).toBe(T0 + 50_000);
    const early = aJob({ now: T0, delayMs: 300, topic: 'early' });
    await store.pushMany([early], T0);
    scheduler.notifyDue(early.runAt);
    expect(clock.nextTimerAt).toBe(T0 + 300);
    expect(clock.pendingTimers).toBe(1);
    await advance(300);
    expect(readyEvents).toEqual([['early']]);
    // a later job does not move the wake-up
    scheduler.notifyDue(T0 + 70_000);
    expect(clock.nextTimerAt).toBe(T0 + 50_000);
  });

  it('promotes a burst in batches until none is due', async () => {
    const jobs = Array.from({ length: 250 }, () => aJob({ now: T0, delayMs: 1000 }));
    await store.pushMany(jobs, T0);
    scheduler.start();
    await scheduler.settled();
    await advance(1000);
    const stats = await store.stats();
    expect(stats[0]!.counts.ready).toBe(250);
    expect(readyEvents).toHaveLength(3);
  });

  it('retries a reservation whose TTR lapsed after its backoff, then buries it when attempts run out', async () => {
    const job = aJob({ now: T0, ttrMs: 1000, retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 500 } } });
    await store.pushMany([job], T0);
    scheduler.start();
    await scheduler.settled();
    const [first] = (await store.reserve([job.topic], 1, T0)).reservations;
    scheduler.notifyDue(first!.deadlineAt);
    expect(clock.nextTimerAt).toBe(T0 + 1000);
    await advance(1000);
    expect(await store.get(job.id)).toMatchObject({ state: 'delayed', runAt: T0 + 1500, attempts: 1 });
    expect((await store.get(job.id))!.lastError).toMatch(/TTR lapsed/);
    await advance(500);
    expect((await store.get(job.id))!.state).toBe('ready');
    const [second] = (await store.reserve([job.topic], 1, clock.now())).reservations;
    scheduler.notifyDue(second!.deadlineAt);
    await advance(1000);
    expect(await store.get(job.id)).toMatchObject({ state: 'dead', attempts: 2 });
    // the first consumer's late finish is refused
    expect(await store.finish(job.id, first!.token, clock.now())).toMatchObject({ ok: false });
  });

  it('expires ready jobs whose ttl ran out', async () => {
    const job = aJob({ now: T0, delayMs: 100, ttlMs: 1000 });
    await store.pushMany([job], T0);
    scheduler.start();
    await scheduler.settled();
    await advance(100);
    expect((await store.get(job.id))!.state).toBe('ready');
    expect(clock.nextTimerAt).toBe(T0 + 1100);
    await advance(1000);
    expect((await store.get(job.id))!.state).toBe('expired');
  });

  it('purges terminal jobs past the retention on its purge interval', async () => {
    const purging = new DueTimer(
      store,
      clock,
      { onReady: () => {}, onError: () => {} },
      { retentionMs: 10_000, purgeIntervalMs: 5000, safetyWakeMs: 5000 },
    );
    const job = aJob({ now: T0 });
    await store.pushMany([job], T0);
    const [r] = (await store.reserve([job.topic], 1, T0)).reservations;
    await store.finish(job.id, r!.token, T0);
    purging.start();
    await purging.settled();
    clock.advance(5000);
    await purging.settled();
    expect(await store.get(job.id)).not.toBeNull();
    for (let i = 0; i < 2; i++) {
      clock.advance(5000);
      await purging.settled();
    }
    expect(await store.get(job.id)).toBeNull();
    await purging.stop();
  });

  it('keeps going after a failing tick, backing off', async () => {
    scheduler.start();
    await scheduler.settled();
    await store.close(); // every store call now throws
    await advance(60_000);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    const retryAt = clock.nextTimerAt!;
    expect(retryAt - clock.now()).toBeLessThanOrEqual(60_000);
    await store.open();
    await advance(retryAt - clock.now());
    expect(clock.nextTimerAt).toBe(clock.now() + 60_000);
  });

  it('stop ends a catch-up between two batches, not after the whole due backlog', async () => {
    await store.pushMany(
      Array.from({ length: 1000 }, () => aJob({ now: T0, delayMs: 1000 })),
      T0,
    );
    clock.advance(2000);
    let calls = 0;
    let stopping: Promise<void> | undefined;
    const promoteDue = store.promoteDue.bind(store);
    store.promoteDue = async (...args) => {
      calls++;
      const answer = await promoteDue(...args);
      if (calls === 2) stopping = scheduler.stop();
      return answer;
    };
    scheduler.start();
    await scheduler.settled();
    await stopping;
    expect(calls).toBe(2);
    expect((await store.stats())[0]!.counts).toMatchObject({ ready: 200, delayed: 800 });
  });

  it('stop cancels the timer', async () => {
    scheduler.start();
    await scheduler.settled();
    await scheduler.stop();
    expect(clock.pendingTimers).toBe(0);
  });
});
