// Each topic's due index (lua/due-index.lua): it holds exactly the topic's entries of the partition's due
// index through every transition that moves a delayed job (run now and a replacing push included), stats take a topic's next due time from it, and
// opening a partition written before it (layout 5) builds it.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RECORD_LAYOUT } from '../../src/store/redis/record-layout.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('topicdue');
const PARTITIONS = 2;
const T0 = Date.UTC(2026, 0, 1);
const TOPICS = ['mail', 'orders'];

/** Per partition and topic: the due index's entries of the topic, and the topic's own index. */
async function bothIndexes(redis: Redis, prefix: string) {
  const out: { shared: string[]; own: string[] }[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    const k = partitionKeys(prefix, p);
    const all = await redis.zrange(k.dueIndex, 0, '-1', 'WITHSCORES');
    for (const topic of TOPICS) {
      const shared: string[] = [];
      for (let i = 0; i < all.length; i += 2)
        if (all[i]!.startsWith(`${topic}#`)) shared.push(`${all[i]}=${all[i + 1]}`);
      const own = await redis.zrange(k.topicDue(topic), 0, '-1', 'WITHSCORES');
      out.push({ shared: shared.sort(), own: pairs(own).sort() });
    }
  }
  return out;
}
const pairs = (flat: string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) out.push(`${flat[i]}=${flat[i + 1]}`);
  return out;
};

describe('RedisStore topic due indexes', () => {
  let redis: Redis;
  let store: RedisStore | undefined;
  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  afterAll(async () => {
    await prefixes.sweep();
    await redis.quit();
  });

  const open = async (prefix: string): Promise<RedisStore> => {
    store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'topicdue', partitions: PARTITIONS });
    await store.open();
    return store;
  };

  const expectInStep = async (prefix: string) => {
    const both = await bothIndexes(redis, prefix);
    for (const { shared, own } of both) expect(own).toEqual(shared);
    return both;
  };

  it('follow the due index through push, cancel, reschedule, run now, upsert, promote, reserve, retry and release', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix);
    const jobs = Array.from({ length: 60 }, (_, i) =>
      aJob({ topic: TOPICS[i % 2]!, now: T0, delayMs: 1_000 * (i + 1) }),
    );
    await s.pushMany(jobs, T0);
    const pushed = await expectInStep(prefix);
    expect(pushed.some((entry) => entry.own.length > 0)).toBe(true);

    await s.cancel(jobs[0]!.id, T0);
    await s.reschedule(jobs[1]!.id, T0 + 500, T0);
    expect((await s.runNow(jobs[2]!.id, T0)).ok).toBe(true);
    // Pushed again with onExists replace: the job moves to the new due time, earlier than its set's head.
    const again = { ...jobs[3]!, runAt: T0 + 200, onExists: { mode: 'replace' as const } };
    await s.pushMany([again], T0);
    expect((await s.get(jobs[3]!.id))?.runAt).toBe(T0 + 200);
    await expectInStep(prefix);

    await s.promoteDue(T0 + 10_500, 100);
    await expectInStep(prefix);

    const { reservations } = await s.reserve(TOPICS, 4, T0 + 10_500);
    expect(reservations.length).toBeGreaterThan(0);
    await s.retry(reservations[0]!.job.id, reservations[0]!.token, T0 + 10_600, {
      runAt: T0 + 100,
      error: 'again',
    });
    await s.release(reservations[1]!.job.id, reservations[1]!.token, T0 + 10_600);
    const reserved = await s.reserveJob(jobs[59]!.id, T0 + 10_700);
    expect(reserved.ok).toBe(true);
    await expectInStep(prefix);

    // Stats read each topic's next due time from its own index: the earliest delayed job left.
    const stats = await s.stats();
    for (const topic of TOPICS) {
      const due = (await s.list({ topic, state: 'delayed', limit: 100 })).jobs.map((j) => j.runAt);
      expect(stats.find((t) => t.topic === topic)?.nextDueAt).toBe(Math.min(...due));
    }
  });

  it('are built when a store opens a partition of layout 5 (written before them)', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix);
    await s.pushMany(
      Array.from({ length: 40 }, (_, i) => aJob({ topic: TOPICS[i % 2]!, now: T0, delayMs: 60_000 + i })),
      T0,
    );
    const built = await expectInStep(prefix);
    const statsBefore = await s.stats();
    await s.close();
    store = undefined;
    // As a layout-5 delayq left it: no topic due indexes, and its mark.
    for (let p = 0; p < PARTITIONS; p++) {
      const k = partitionKeys(prefix, p);
      await redis.del(...TOPICS.map((topic) => k.topicDue(topic)));
      await redis.hset(k.counts, '#layout', '5');
    }
    const after = await open(prefix);
    expect(await expectInStep(prefix)).toEqual(built);
    expect(await after.stats()).toEqual(statsBefore);
    expect(statsBefore.map((t) => t.nextDueAt)).toEqual([T0 + 60_000, T0 + 60_001]);
    for (let p = 0; p < PARTITIONS; p++)
      expect(await redis.hget(partitionKeys(prefix, p).counts, '#layout')).toBe(String(RECORD_LAYOUT));
  });
});
