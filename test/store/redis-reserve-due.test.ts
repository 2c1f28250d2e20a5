// Due jobs reserved straight from their delayed sets (reserve.lua), and the promoter leaving a draining
// topic's due jobs to its consumers (promote.lua; RedisStoreOptions.leaveDueToConsumers, on by default). One partition:
// with several, promote moves every due job and reserve only visits partitions with ready jobs.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { DelayqService } from '../../src/service/service.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('due');
const redis = new Redis({ host: '127.0.0.1', port: 6379 });
afterAll(async () => {
  redis.disconnect();
  await prefixes.sweep();
});

const T0 = Date.UTC(2026, 0, 1);
let lastPrefix = '';
const options = (prefix: string) => ({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'test-node', partitions: 1 });
const make = (leaveDueToConsumers?: boolean) => {
  lastPrefix = prefixes.next();
  return new RedisStore({ ...options(lastPrefix), leaveDueToConsumers });
};
/** Runs `use` on a freshly opened one-partition store (and its keys), and closes it whatever happens. */
async function withStore(
  use: (store: RedisStore, keys: ReturnType<typeof partitionKeys>) => Promise<void>,
  leaveDueToConsumers?: boolean,
): Promise<void> {
  const store = make(leaveDueToConsumers);
  const keys = partitionKeys(lastPrefix, 0);
  await store.open();
  try {
    await use(store, keys);
  } finally {
    await store.close();
  }
}
const countsOf = async (store: RedisStore, topic: string) =>
  (await store.stats()).find((s) => s.topic === topic)?.counts;

describe('reserve takes due jobs the promoter has not moved', () => {
  it('records them as promoted and reserved at one instant', () =>
    withStore(async (store) => {
      const due = [1000, 2000, 3000].map((d) => aJob({ topic: 'direct', delayMs: d }));
      const later = aJob({ topic: 'direct', delayMs: 60_000 });
      const other = aJob({ topic: 'elsewhere', delayMs: 1000 });
      await store.pushMany([...due, later, other], T0);
      const now = T0 + 5000;
      const got = (await store.reserve(['direct'], 10, now)).reservations;
      expect(got.map((r) => r.job.id).sort()).toEqual(due.map((j) => j.id).sort());
      for (const r of got) {
        expect(r.job).toMatchObject({
          state: 'reserved',
          attempts: 1,
          readyAt: now,
          reservedAt: now,
          deadlineAt: now + 30_000,
        });
        expect((await store.history(r.job.id)).map((h) => [h.event, h.at])).toEqual([
          ['push', T0],
          ['promote', now],
          ['reserve', now],
        ]);
      }
      expect((await store.get(later.id))!.state).toBe('delayed');
      expect((await store.get(other.id))!.state).toBe('delayed');
      expect(await countsOf(store, 'direct')).toMatchObject({ delayed: 1, ready: 0, reserved: 3 });
      // Gone from the delayed index: the promoter finds only the other topic's job now.
      const promoted = await store.promoteDue(now, 100);
      expect(promoted).toMatchObject({ count: 1, topics: ['elsewhere'] });
      // And the reservations finish like any other.
      for (const r of got) expect((await store.finish(r.job.id, r.token, now + 1)).ok).toBe(true);
    }));

  it('merges ready and due jobs in the ready order, and never hands out a job whose ttl ran out', () =>
    withStore(async (store) => {
      const ready = aJob({ topic: 'mixed', delayMs: 3000 });
      await store.pushMany([ready], T0);
      await store.promoteDue(T0 + 3000, 100);
      const early = aJob({ topic: 'mixed', delayMs: 1000 });
      const late = aJob({ topic: 'mixed', delayMs: 4000 });
      const expired = aJob({ topic: 'mixed', delayMs: 500, ttlMs: 1000 });
      await store.pushMany([late, early, expired], T0);
      const now = T0 + 5000;
      // All priority 0: by due time, wherever the job waits (ready set or delayed set).
      const got = (await store.reserve(['mixed'], 2, now)).reservations;
      expect(got.map((r) => r.job.id)).toEqual([early.id, ready.id]);
      const next = (await store.reserve(['mixed'], 10, now)).reservations;
      expect(next.map((r) => r.job.id)).toEqual([late.id]);
      // The lapsed one stays for the scheduler: promoted, then expired.
      expect((await store.get(expired.id))!.state).toBe('delayed');
      await store.promoteDue(now, 100);
      expect(await store.expireDue(now, 100)).toEqual([{ id: expired.id, topic: 'mixed' }]);
      expect((await store.get(expired.id))!.state).toBe('expired');
    }, false));

  it('takes an earlier due job before ready ones even when the ready set alone fills the call', () =>
    withStore(async (store) => {
      const ready = [0, 1].map(() => aJob({ topic: 'full', delayMs: 3000 }));
      await store.pushMany(ready, T0);
      await store.promoteDue(T0 + 3000, 100);
      const early = aJob({ topic: 'full', delayMs: 1000 });
      await store.pushMany([early], T0);
      expect((await store.reserve(['full'], 1, T0 + 5000)).reservations.map((r) => r.job.id)).toEqual([early.id]);
      expect((await store.reserve(['full'], 2, T0 + 5000)).reservations).toHaveLength(2);
    }));

  it('takes the jobs due at one instant set by set, emptying whole sets', () =>
    withStore(async (store, keys) => {
      // One push call puts 8 consecutive jobs in a delayed set (push-args.ts): 3 sets of 8. The ids are
      // chosen so that the 8 lowest are spread over the 3 sets: an order by id alone would take from each.
      const jobs = Array.from({ length: 24 }, (_, i) =>
        aJob({ topic: 'sets', delayMs: 1000, id: `s-${String((i % 8) * 3 + Math.floor(i / 8)).padStart(2, '0')}` }),
      );
      await store.pushMany(jobs, T0);
      expect(await redis.zcard(keys.dueIndex)).toBe(3);
      const first = (await store.reserve(['sets'], 8, T0 + 2000)).reservations;
      expect(first).toHaveLength(8);
      expect(await redis.zcard(keys.dueIndex)).toBe(2); // one set emptied, the other two untouched
      const firstIds = first.map((r) => r.job.id);
      expect(firstIds).toEqual([...firstIds].sort()); // in id order within the set
      expect((await store.reserve(['sets'], 8, T0 + 2000)).reservations).toHaveLength(8);
      expect(await redis.zcard(keys.dueIndex)).toBe(1);
    }));

  it('keeps the reserved set a skiplist with a marker that never lapses nor wakes the scheduler', () =>
    withStore(async (store, keys) => {
      const jobs = Array.from({ length: 3 }, () => aJob({ topic: 'marked', delayMs: 0, ttrMs: 5000 }));
      await store.pushMany(jobs, T0);
      const got = (await store.reserve(['marked'], 3, T0)).reservations;
      expect(await redis.object('ENCODING', keys.reserved)).toBe('skiplist');
      expect(await store.nextWakeAt()).toBe(T0 + 5000); // the earliest deadline, not the marker's +inf
      for (const r of got) expect((await store.finish(r.job.id, r.token, T0 + 1)).ok).toBe(true);
      expect(await redis.zcard(keys.reserved)).toBe(1); // the marker alone, still a skiplist
      expect(await redis.object('ENCODING', keys.reserved)).toBe('skiplist');
      expect(await store.nextWakeAt()).toBeNull();
      expect(await store.listLapsed(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      const promoted = await store.promoteDue(T0 + 10_000, 10);
      expect(promoted.next).toMatchObject({ deadlineAt: null });
    }));

  it('takes due jobs of every topic asked for, and only of those', () =>
    withStore(async (store) => {
      const a = aJob({ topic: 'ta', delayMs: 2000 });
      const b = aJob({ topic: 'tb', delayMs: 1000 });
      const c = aJob({ topic: 'tc', delayMs: 500 });
      await store.pushMany([a, b, c], T0);
      const got = (await store.reserve(['ta', 'tb'], 10, T0 + 3000)).reservations;
      expect(got.map((r) => r.job.id)).toEqual([b.id, a.id]);
      expect((await store.get(c.id))!.state).toBe('delayed');
    }));
});

describe('the promoter leaves a draining topic to its consumers', () => {
  it('names the topic so waiters wake, promotes other topics, and wakes again when the window closes', () =>
    withStore(async (store) => {
      const first = aJob({ topic: 'drained', delayMs: 1000 });
      await store.pushMany([first], T0);
      const [r] = (await store.reserve(['drained'], 1, T0 + 1000)).reservations; // the consumer takes a job: draining
      expect(r!.job.id).toBe(first.id);
      const burst = Array.from({ length: 5 }, () => aJob({ topic: 'drained', delayMs: 1200 }));
      const quiet = aJob({ topic: 'quiet', delayMs: 1200 });
      const future = aJob({ topic: 'quiet', delayMs: 1600 });
      await store.pushMany([...burst, quiet, future], T0);
      const now = T0 + 1300;

      const left = await store.promoteDue(now, 100);
      expect(left.count).toBe(1); // quiet's job only
      expect(left.topics.sort()).toEqual(['drained', 'quiet']);
      expect(left.next.promoteAt).toBe(T0 + 1600); // the next set to come due (before the window closes)
      expect(await countsOf(store, 'drained')).toMatchObject({ delayed: 5, ready: 0 });
      expect((await store.reserve(['drained'], 10, now)).reservations.map((x) => x.job.id).sort()).toEqual(
        burst.map((j) => j.id).sort(),
      );

      // A store told not to leave them (leaveDueToConsumers: false) moves every due job.
      const more = aJob({ topic: 'drained', delayMs: 1400 });
      await store.pushMany([more], T0);
      expect((await store.promoteDue(T0 + 1500, 100)).count).toBe(0);
      const strict = new RedisStore({ ...options(lastPrefix), leaveDueToConsumers: false });
      await strict.open();
      expect((await strict.promoteDue(T0 + 1500, 100)).count).toBe(1);
      await strict.close();
    }));

  it('wakes for the next job of a set it left, which no due-index head shows', () =>
    withStore(async (store) => {
      const seed = aJob({ topic: 'steady', delayMs: 0 });
      await store.pushMany([seed], T0);
      await store.reserve(['steady'], 1, T0); // draining since T0
      // One push call's consecutive jobs share a delayed set: due at +100 and +150.
      const [first, second] = [100, 150].map((d) => aJob({ topic: 'steady', delayMs: d }));
      await store.pushMany([first!, second!], T0);
      const left = await store.promoteDue(T0 + 100, 100);
      expect(left).toMatchObject({ count: 0, topics: ['steady'] });
      expect(left.next.promoteAt).toBe(T0 + 150);
      expect((await store.reserve(['steady'], 10, T0 + 100)).reservations.map((r) => r.job.id)).toEqual([first!.id]);
      expect((await store.reserve(['steady'], 10, T0 + 150)).reservations.map((r) => r.job.id)).toEqual([second!.id]);
    }));

  it('never leaves the due jobs of a topic with priorities: its ready set serves them by priority', () =>
    withStore(async (store) => {
      const seed = aJob({ topic: 'prio', delayMs: 0 });
      await store.pushMany([seed], T0);
      await store.reserve(['prio'], 1, T0); // draining since T0
      // Due at once, in due order low-priority first: a drain straight from the delayed sets would
      // hand them out in that order.
      const jobs = [0, 1, 2, 3].map((i) => aJob({ topic: 'prio', delayMs: 100 + i, priority: 10 - 5 * i }));
      await store.pushMany(jobs, T0);
      const promoted = await store.promoteDue(T0 + 200, 100);
      expect(promoted.count).toBe(4);
      expect((await store.reserve(['prio'], 10, T0 + 200)).reservations.map((r) => r.job.priority)).toEqual([
        -5, 0, 5, 10,
      ]);
      // Nor does reserve take them from the delayed sets before the promoter ran.
      const more = [0, 1].map((i) => aJob({ topic: 'prio', delayMs: 300 + i, priority: 3 - 6 * i }));
      await store.pushMany(more, T0);
      expect((await store.reserve(['prio'], 10, T0 + 400)).reservations).toEqual([]);
      await store.promoteDue(T0 + 400, 100);
      expect((await store.reserve(['prio'], 10, T0 + 400)).reservations.map((r) => r.job.priority)).toEqual([-3, 3]);
    }));

  it('promotes them once the consumers stop, or once they have waited the longest hold', () =>
    withStore(async (store) => {
      const seed = aJob({ topic: 'd', delayMs: 0 });
      await store.pushMany([seed], T0);
      await store.reserve(['d'], 1, T0); // draining since T0
      const job = aJob({ topic: 'd', delayMs: 100 });
      await store.pushMany([job], T0);
      const held = await store.promoteDue(T0 + 200, 100);
      expect(held.count).toBe(0);
      expect(held.next.promoteAt).toBe(T0 + 1000); // the drain window closes a second after the last reserve
      // No reserve since: the window closed, so the promoter moves it.
      expect((await store.promoteDue(T0 + 1000, 100)).count).toBe(1);
      expect((await store.get(job.id))!.state).toBe('ready');

      // A consumer that keeps reserving other jobs holds a due job back for 5 s at most.
      const old = aJob({ topic: 'd', delayMs: 2000 });
      await store.pushMany([old], T0);
      for (const at of [T0 + 2500, T0 + 4000, T0 + 5500, T0 + 6900]) {
        await store.pushMany([aJob({ topic: 'd', runAt: T0 + 1000, now: at })], at);
        const taken = (await store.reserve(['d'], 1, at)).reservations; // a ready job due before `old` goes first: `old` stays
        expect(taken[0]!.job.id).not.toBe(old.id);
        expect((await store.promoteDue(at, 100)).count).toBe(0);
      }
      expect((await store.promoteDue(T0 + 7000, 100)).count).toBe(1);
      expect((await store.get(old.id))!.state).toBe('ready');
    }));
});

describe('a service drains a burst through the shortcut', () => {
  it('delivers every job once, with the full history, most of them reserved straight from delayed', async () => {
    const store = make();
    const service = new DelayqService({ store, nodeId: 'svc', clock: store.clock });
    await service.start();
    try {
      const total = 5000;
      // Far enough ahead that every batch is pushed delayed, even on a loaded host.
      const runAt = store.clock.now() + 5000;
      for (let i = 0; i < total; i += 1000) {
        await service.pushBatch(
          Array.from({ length: 1000 }, (_, k) => ({ topic: 'burst', id: `b-${i + k}`, runAt, body: '{}' })),
        );
      }
      const seen = new Set<string>();
      let direct = 0;
      while (seen.size < total) {
        const got = await service.reserve({ topics: ['burst'], count: 100, waitMs: 10_000 });
        expect(got.length).toBeGreaterThan(0);
        for (const r of got) {
          expect(seen.has(r.job.id)).toBe(false);
          seen.add(r.job.id);
          expect(r.job.reservedAt!).toBeGreaterThanOrEqual(runAt);
          if (r.job.readyAt === r.job.reservedAt) direct++;
        }
        await Promise.all(got.map((r) => service.finish(r.job.id, r.token)));
      }
      // The scheduler promotes the first batch (1000) before any consumer has taken a job; after that
      // the topic is draining and the consumer takes the rest from the delayed sets.
      // How many batches the scheduler promotes before the consumer's first reserve lands depends on the
      // host's load (seen: 1,200 and 2,100 of 5,000 taken directly at load 30 on 2 cores, most when idle),
      // so the bound only shows the shortcut at work; the cases above pin down what it does.
      expect(direct).toBeGreaterThan(total / 10);
      const counts = (await service.topics.stats()).find((s) => s.topic === 'burst')!.counts;
      expect(counts).toMatchObject({ delayed: 0, ready: 0, reserved: 0, finished: total });
      for (const id of ['b-0', 'b-2500', `b-${total - 1}`]) {
        expect((await service.history(id)).map((h) => h.event)).toEqual(['push', 'promote', 'reserve', 'finish']);
      }
    } finally {
      await service.close();
    }
  });
});
