import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/create-service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

/**
 * Redis keys are safe whatever the topic or id: (1) the service refuses names with braces, spaces, slashes,
 * control characters or non-ASCII before anything reaches Redis; (2) even when a caller bypasses that
 * validation and hands hostile names to RedisStore directly, every key stays inside its partition's hash
 * tag `{prefix:p}` (so a script never touches another Cluster slot) and topics never bleed into each other.
 * Runs against the real Redis on 6379 under a random key prefix.
 */
const prefixes = prefixPool('sec');
let redis: Redis;
const NOW = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
  await redis.connect().catch((err: Error) => {
    throw new Error(`Redis is required on 127.0.0.1:6379 for the Redis key tests: ${err.message}`);
  });
});
afterAll(async () => {
  await prefixes.sweep();
  await redis.quit();
});

async function keysOf(prefix: string): Promise<string[]> {
  const found: string[] = [];
  for (const pattern of [`*${prefix}*`]) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/** Redis Cluster's hash tag rule: the text between the first `{` and the first `}` after it, if not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close <= open + 1 ? key : key.slice(open + 1, close);
}

const HOSTILE_TOPICS = [
  'a}b',
  '{evil}',
  '}{',
  'x:{y}:z',
  'üñí©ødé',
  '😀',
  'a b',
  'a|2',
  'dq:0}:jobs',
  't:ready:x',
  '../t',
  '\u0000nul',
];
const HOSTILE_IDS = [
  '{id}',
  'id}',
  '{',
  '}x{',
  'ü-id',
  '😀-id',
  'id with spaces',
  'a|b',
  '\nnl',
  `{${'x'.repeat(50)}}`,
];

describe('Redis keys whatever the topic or id', () => {
  it('refuses hostile topic and id names at validation: nothing reaches Redis', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'sec', partitions: 4 });
    const service = createService(loadConfig({ env: {} }), { store });
    await service.start();
    try {
      // `t:ready:x` is a valid topic (colons are allowed); the second test shows it cannot reach other keys.
      for (const topic of HOSTILE_TOPICS.filter((t) => t !== 't:ready:x')) {
        await expect(service.push({ topic, body: 1 })).rejects.toMatchObject({ code: 'E_VALIDATION', field: 'topic' });
      }
      for (const id of HOSTILE_IDS) {
        await expect(service.push({ topic: 'orders.safe', id, body: 1 })).rejects.toMatchObject({
          code: 'E_VALIDATION',
          field: 'id',
        });
        await expect(service.get(id)).rejects.toMatchObject({ code: 'E_VALIDATION' });
      }
      await expect(service.reserve({ topics: ['{evil}'] })).rejects.toMatchObject({ code: 'E_VALIDATION' });
      const keys = await keysOf(prefix);
      expect(keys.filter((k) => k.includes('evil') || k.includes('{id}'))).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it('keeps every key inside its partition hash tag even for names that bypass validation', async () => {
    const prefix = prefixes.next();
    const partitions = 4;
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'sec', partitions });
    await store.open();
    try {
      // A topic with a '/' would read back as topic and group (the record keeps `topic/group`): refused by name.
      await expect(store.pushMany([aJob({ topic: '../t', now: NOW })], NOW)).rejects.toMatchObject({
        code: 'E_VALIDATION',
        field: 'topic',
      });
      const topics = HOSTILE_TOPICS.filter((t) => !t.includes('/'));
      const jobs = [
        ...topics.map((topic, i) => aJob({ topic, id: `${HOSTILE_IDS[i % HOSTILE_IDS.length]}#${i}`, now: NOW })),
        ...topics.map((topic, i) => aJob({ topic, id: `d-${i}`, now: NOW, delayMs: 60_000 })),
      ];
      await store.pushMany(jobs, NOW);
      await store.reserve(['a}b', '{evil}'], 10, NOW);
      const keys = await keysOf(prefix);
      expect(keys.length).toBeGreaterThan(10);
      // The partitions' tags, and the record of the partitions beside them (partition-count.ts).
      const tags = new Set([...Array.from({ length: partitions }, (_, p) => `${prefix}:${p}`), `${prefix}:layout`]);
      for (const key of keys) {
        expect({ key, startsWithTag: key.startsWith(`{${prefix}:`), tag: tags.has(hashTag(key)) }).toEqual({
          key,
          startsWithTag: true,
          tag: true,
        });
      }
      // Topics stay apart: each job comes back with its own topic, and each topic counts only its jobs.
      for (const job of jobs) expect((await store.get(job.id))?.topic).toBe(job.topic);
      const stats = await store.stats();
      for (const topic of topics) {
        const counts = stats.find((s) => s.topic === topic)!.counts;
        expect(counts.ready + counts.reserved + counts.delayed).toBe(2);
      }
      // `t:ready:x` is a topic, not a path into another topic's keys: reserving `t` finds nothing.
      expect((await store.reserve(['t'], 10, NOW)).reservations).toEqual([]);
      const reservedT = (await store.reserve(['t:ready:x'], 10, NOW)).reservations;
      expect(reservedT.map((r) => r.job.topic)).toEqual(['t:ready:x']);
    } finally {
      await store.close();
    }
  });
});
