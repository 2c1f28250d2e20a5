// The Redis store's bizKey and tag indexes (lua/label-index.lua): list walks them instead of every job of
// the partition, the scripts that delete a job leave no index entry behind, and opening a partition written
// before them (layout 4) builds them.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RECORD_LAYOUT } from '../../src/store/redis/record-layout.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('labels');
const PARTITIONS = 2;
const T0 = Date.UTC(2026, 0, 1);

/** Every label index key of the prefix, with its members. */
async function indexes(redis: Redis, prefix: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (let p = 0; p < PARTITIONS; p++) {
    const tp = partitionKeys(prefix, p).topicPrefix;
    for (const family of ['bizkey:', 'tag:']) {
      const [, keys] = await redis.scan('0', 'MATCH', `${tp}${family}*`, 'COUNT', 10_000);
      for (const key of keys)
        out[key.slice(tp.length)] = [...(out[key.slice(tp.length)] ?? []), ...(await redis.zrange(key, 0, '-1'))];
    }
  }
  for (const members of Object.values(out)) members.sort();
  return out;
}

describe('RedisStore label indexes', () => {
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
    store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'labels', partitions: PARTITIONS });
    await store.open();
    return store;
  };

  it('hold each labelled job under its bizKey and tag until it is deleted, by id or by purge', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix);
    const a = aJob({ bizKey: 'order-1', tag: 'promo' });
    const b = aJob({ bizKey: 'order-1', tag: null });
    const c = aJob({ bizKey: null, tag: 'promo' });
    const plain = aJob();
    await s.pushMany([a, b, c, plain], T0);
    expect(await indexes(redis, prefix)).toEqual({
      'bizkey:order-1': [a.id, b.id].sort(),
      'tag:promo': [a.id, c.id].sort(),
    });
    expect((await s.list({ bizKey: 'order-1', limit: 10 })).jobs.map((j) => j.id)).toEqual([a.id, b.id].sort());
    for (const j of [a, b, c]) await s.cancel(j.id, T0 + 1);
    expect(await s.deleteEndedMany([a.id])).toBe(1);
    expect(await indexes(redis, prefix)).toEqual({ 'bizkey:order-1': [b.id], 'tag:promo': [c.id] });
    expect(await s.purge(T0 + 10 * 86_400_000, 100)).toBe(2);
    expect(await indexes(redis, prefix)).toEqual({});
    expect((await s.list({ tag: 'promo', limit: 10 })).jobs).toEqual([]);
  });

  it('page a label in id order from the cursor, with the other filters applied', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix);
    const jobs = Array.from({ length: 25 }, (_, i) =>
      aJob({ id: `lbl-${String(i).padStart(2, '0')}`, bizKey: 'o-9', topic: i % 2 ? 'odd' : 'even' }),
    );
    await s.pushMany(jobs, T0);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.list({ bizKey: 'o-9', topic: 'odd', limit: 4, ...(cursor ? { cursor } : {}) });
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.next ?? undefined;
    } while (cursor);
    expect(seen).toEqual(jobs.filter((_, i) => i % 2).map((j) => j.id));
  });

  it('are built when a store opens a partition of layout 4 (written before them)', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix);
    const jobs = Array.from({ length: 40 }, (_, i) => aJob({ bizKey: `o-${i % 3}`, tag: i % 2 ? 't' : null }));
    await s.pushMany(jobs, T0);
    const built = await indexes(redis, prefix);
    await s.close();
    store = undefined;
    // As a layout-4 delayq left it: no indexes, and its mark.
    for (let p = 0; p < PARTITIONS; p++) {
      const k = partitionKeys(prefix, p);
      const keys = Object.keys(built).map((key) => `${k.topicPrefix}${key}`);
      await redis.del(...keys);
      await redis.hset(k.counts, '#layout', '4');
    }
    expect(await indexes(redis, prefix)).toEqual({});
    const after = await open(prefix);
    expect(await indexes(redis, prefix)).toEqual(built);
    expect(Object.keys(built).sort()).toEqual(['bizkey:o-0', 'bizkey:o-1', 'bizkey:o-2', 'tag:t']);
    expect((await after.list({ bizKey: 'o-1', limit: 100 })).jobs).toHaveLength(13);
    for (let p = 0; p < PARTITIONS; p++)
      expect(await redis.hget(partitionKeys(prefix, p).counts, '#layout')).toBe(String(RECORD_LAYOUT));
  });
});
