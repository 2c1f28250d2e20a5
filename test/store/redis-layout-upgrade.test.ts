// An upgrade of a partition written in an older record layout (lua/upgrade-layout.lua) reads a slice per call,
// so Redis answers other clients between calls however many jobs the partition holds; its progress lives in the
// partition, so another call (this process's next, another process's, a restart's) takes up where it stopped.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RECORD_LAYOUT } from '../../src/store/redis/record-layout.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { defineScripts, runScript } from '../../src/store/redis/scripts.js';
import type { RedisClient } from '../../src/store/redis/connection.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('upgrade');
const PARTITIONS = 2;
const JOBS = 6000;
const SLICE = 1000;
const T0 = Date.UTC(2026, 0, 1);
const TOPICS = ['up-a', 'up-b'];

/** Every key the upgrade from layout 3 builds, with its content, per partition. */
async function built(redis: Redis, prefix: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (let p = 0; p < PARTITIONS; p++) {
    const k = partitionKeys(prefix, p);
    for (const key of await derivedKeys(redis, prefix, p)) {
      out[key] =
        (await redis.type(key)) === 'hash' ? await redis.hgetall(key) : await redis.zrange(key, 0, '-1', 'WITHSCORES');
    }
    out[`${p}#layout`] = await redis.hget(k.counts, '#layout');
  }
  return out;
}

/** The due counters, the label indexes and each topic's due index of partition p. */
async function derivedKeys(redis: Redis, prefix: string, p: number): Promise<string[]> {
  const k = partitionKeys(prefix, p);
  const keys: string[] = [];
  for (const kind of ['due:', 'bizkey:', 'tag:', 'topicdue:']) {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${k.topicPrefix}${kind}*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
  }
  return keys.sort();
}

describe('the Redis layout upgrade', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = new Redis({ port: 6379, host: '127.0.0.1' });
  });
  afterAll(async () => {
    redis.disconnect();
    await prefixes.sweep();
  });

  it(`upgrades a partition of layout 3 holding ${JOBS / PARTITIONS} jobs a slice per call, and resumes`, async () => {
    const prefix = prefixes.next();
    const options = { url: 'redis://127.0.0.1:6379', prefix, nodeId: 'upgrade', partitions: PARTITIONS };
    const before = new RedisStore(options);
    await before.open();
    for (let i = 0; i < JOBS; i += 1000) {
      const jobs = Array.from({ length: 1000 }, (_, k) => {
        const n = i + k;
        return aJob({
          topic: TOPICS[n % 2]!,
          runAt: T0 + 60_000 + n * 97_003,
          bizKey: `b-${n % 7}`,
          tag: n % 3 ? 't' : null,
        });
      });
      await before.pushMany(jobs, T0);
    }
    await before.close();
    const expected = await built(redis, prefix);
    // As a layout-3 delayq left it: none of the keys later layouts build, and its mark.
    for (let p = 0; p < PARTITIONS; p++) {
      const derived = await derivedKeys(redis, prefix, p);
      if (derived.length) await redis.del(...derived);
      await redis.hset(partitionKeys(prefix, p).counts, '#layout', '3');
    }

    // Partition 0 by hand: each call reads a slice and leaves the partition in its old layout until the last.
    const client = new Redis({ port: 6379, host: '127.0.0.1' }) as unknown as RedisClient;
    defineScripts(client);
    const k = partitionKeys(prefix, 0);
    const step = () => runScript(client, 'upgrade-layout', k.scriptKeys, [k.topicPrefix, 3, RECORD_LAYOUT, SLICE]);
    let calls = 0;
    let answer: unknown;
    do {
      answer = await step();
      calls++;
      if (answer === 2) expect(await redis.hget(k.counts, '#layout')).toBe('3');
    } while (answer === 2);
    expect(answer).toBe(1);
    // The delayed sets (3000 jobs) and the records (3000), a thousand entries a call, then the due index.
    expect(calls).toBeGreaterThanOrEqual(7);
    expect(await step()).toBe(0);
    (client as unknown as Redis).disconnect();

    // Partition 1 half way by hand, the rest by a store's open.
    const k1 = partitionKeys(prefix, 1);
    const client1 = new Redis({ port: 6379, host: '127.0.0.1' }) as unknown as RedisClient;
    defineScripts(client1);
    for (let i = 0; i < 4; i++)
      expect(await runScript(client1, 'upgrade-layout', k1.scriptKeys, [k1.topicPrefix, 3, RECORD_LAYOUT, SLICE])).toBe(
        2,
      );
    (client1 as unknown as Redis).disconnect();
    const after = new RedisStore(options);
    await after.open();
    try {
      expect(await built(redis, prefix)).toEqual(expected);
      expect(await redis.hget(k1.counts, '#upgrade')).toBeNull();
      expect((await after.list({ bizKey: 'b-3', limit: 10_000 })).jobs).toHaveLength(
        Array.from({ length: JOBS }, (_, n) => n).filter((n) => n % 7 === 3).length,
      );
    } finally {
      await after.close();
    }
  });
});
