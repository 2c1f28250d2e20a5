// The ended log (lua/ended-log.lua): terminal jobs appended to one list per minute of their end time,
// which purge walks oldest first; stale entries (redriven jobs) skipped; the sorted set of the layout
// before it still purged.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('endlog');
const redis = new Redis({ host: '127.0.0.1', port: 6379 });
afterAll(async () => {
  redis.disconnect();
  await prefixes.sweep();
});

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 1); // a slot boundary

/** Runs `use` on a fresh one-partition store and its keys, and closes it whatever happens. */
async function withStore(
  use: (store: RedisStore, keys: ReturnType<typeof partitionKeys>) => Promise<void>,
): Promise<void> {
  const prefix = prefixes.next();
  const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'test-node', partitions: 1 });
  await store.open();
  try {
    await use(store, partitionKeys(prefix, 0));
  } finally {
    await store.close();
  }
}

/** Pushes a job due at once, reserves and finishes it at `at`; its id. */
async function finishedAt(store: RedisStore, at: number, topic = 'log'): Promise<string> {
  const job = aJob({ topic, delayMs: 0, now: at });
  await store.pushMany([job], at);
  const [r] = (await store.reserve([topic], 1, at)).reservations;
  expect((await store.finish(job.id, r!.token, at)).ok).toBe(true);
  return job.id;
}

describe('the ended log', () => {
  it('files each job under the minute it ended, and purge takes whole old minutes, then stops at the cutoff', () =>
    withStore(async (store, keys) => {
      const first = await finishedAt(store, T0 + 1000);
      const second = await finishedAt(store, T0 + MINUTE + 1000);
      const late = await finishedAt(store, T0 + MINUTE + 40_000);
      expect(await redis.lrange(`${keys.ended}:${T0 / MINUTE}`, 0, -1)).toEqual([first]);
      expect(await redis.lrange(`${keys.ended}:${T0 / MINUTE + 1}`, 0, -1)).toEqual([second, late]);
      expect(await redis.zrange(`${keys.ended}:slots`, 0, '-1')).toEqual([
        String(T0 / MINUTE),
        String(T0 / MINUTE + 1),
      ]);

      // The cutoff falls inside the second minute: its first job goes, the one that ended after stays.
      expect(await store.purge(T0 + MINUTE + 20_000, 100)).toBe(2);
      expect(await store.get(first)).toBeNull();
      expect(await store.get(second)).toBeNull();
      expect((await store.get(late))!.state).toBe('finished');
      expect(await redis.exists(`${keys.ended}:${T0 / MINUTE}`)).toBe(0);
      expect(await redis.zrange(`${keys.ended}:slots`, 0, '-1')).toEqual([String(T0 / MINUTE + 1)]);
      expect(await redis.lrange(`${keys.ended}:${T0 / MINUTE + 1}`, 0, -1)).toEqual([late]);

      expect(await store.purge(T0 + 3 * MINUTE, 100)).toBe(1);
      expect(await store.get(late)).toBeNull();
      expect(await redis.zcard(`${keys.ended}:slots`)).toBe(0);
      expect((await store.stats()).find((s) => s.topic === 'log')?.counts.finished ?? 0).toBe(0);
    }));

  it('drops the entry of a job that ended again in a later minute, without stopping the walk at it', () =>
    withStore(async (store, keys) => {
      const job = aJob({ topic: 'log', delayMs: 0, now: T0 });
      await store.pushMany([job], T0);
      const [r] = (await store.reserve(['log'], 1, T0 + 1000)).reservations;
      expect((await store.bury(job.id, r!.token, T0 + 1000, { error: 'boom' })).ok).toBe(true);
      const after = await finishedAt(store, T0 + 2000); // filed behind the buried job's entry
      expect(await store.redrive({ ids: [job.id] }, T0 + 2 * MINUTE)).toBe(1);
      const [again] = (await store.reserve(['log'], 1, T0 + 2 * MINUTE)).reservations;
      expect((await store.finish(job.id, again!.token, T0 + 2 * MINUTE + 5000)).ok).toBe(true);
      // Cutoff at the second minute: the redriven job's first entry is stale, the job behind it goes.
      expect(await store.purge(T0 + MINUTE, 100)).toBe(1);
      expect(await store.get(after)).toBeNull();
      expect((await store.get(job.id))!.state).toBe('finished');
      expect(await redis.exists(`${keys.ended}:${T0 / MINUTE}`)).toBe(0);
      expect(await store.purge(T0 + 3 * MINUTE, 100)).toBe(1);
      expect(await store.get(job.id)).toBeNull();
    }));

  it('honours the limit, and skips the entry of a job redriven since, purging it by its new end', () =>
    withStore(async (store, keys) => {
      const ids = [];
      for (let i = 0; i < 3; i++) ids.push(await finishedAt(store, T0 + 1000 + i));
      expect(await store.purge(T0 + MINUTE, 2)).toBe(2);
      expect(await store.get(ids[2]!)).not.toBeNull();
      expect(await store.purge(T0 + MINUTE, 2)).toBe(1);

      // A job buried in the first minute, then redriven and finished again in the third.
      const job = aJob({ topic: 'log', delayMs: 0, now: T0 });
      await store.pushMany([job], T0);
      const [r] = (await store.reserve(['log'], 1, T0 + 2000)).reservations;
      expect((await store.bury(job.id, r!.token, T0 + 2000, { error: 'boom' })).ok).toBe(true);
      expect(await store.redrive({ ids: [job.id] }, T0 + 2 * MINUTE)).toBe(1);
      expect(await store.purge(T0 + 2 * MINUTE + 10_000, 100)).toBe(0); // live again: its old entry is dropped
      expect((await store.get(job.id))!.state).toBe('ready');
      expect(await redis.exists(`${keys.ended}:${T0 / MINUTE}`)).toBe(0);
      const [again] = (await store.reserve(['log'], 1, T0 + 2 * MINUTE + 5000)).reservations;
      expect((await store.finish(job.id, again!.token, T0 + 2 * MINUTE + 5000)).ok).toBe(true);
      expect(await store.purge(T0 + 2 * MINUTE + 4000, 100)).toBe(0); // ended after this cutoff
      expect(await store.purge(T0 + 2 * MINUTE + 6000, 100)).toBe(1);
      expect(await store.get(job.id)).toBeNull();
    }));
});
