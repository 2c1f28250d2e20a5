// Job numbers on Redis when the store loses them: a counter that is gone (a first start, FLUSHALL, a restart
// without persistence, a failover to an empty replica) starts again above every number it could have given,
// from the store's time, so no number is ever given to a second job; numbers stay exact for JavaScript clients.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { NUMBERS_PER_MS } from '../../src/store/redis/redis-job-numbers.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('numbers');
afterAll(() => prefixes.sweep());

describe('Redis job numbers across a loss of their keys', () => {
  it('start above the store time in ms × NUMBERS_PER_MS, and after the counter is lost, above every number given', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'n' });
    const other = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'o' });
    await store.open();
    await other.open();
    const redis = new Redis('redis://127.0.0.1:6379');
    try {
      const before = store.clock.now() * NUMBERS_PER_MS;
      const given = await store.numbers.numbersOf(['a', 'b', 'c']);
      expect(given[0]).toBeGreaterThanOrEqual(before);
      expect(given).toEqual([given[0], given[0]! + 1, given[0]! + 2]);
      expect(await store.numbers.idOf(given[2]!)).toBe('c');
      // (the promise holds from the next millisecond on: up to NUMBERS_PER_MS numbers a millisecond)
      while (store.clock.now() <= given[0]! / NUMBERS_PER_MS) await new Promise((r) => setTimeout(r, 1));
      // the store loses its number keys; the other process, which never gave a number, gives the next one
      await redis.del(`{${prefix}:numbers}:seq`, `{${prefix}:numbers}:byId`, `{${prefix}:numbers}:byNo`);
      const [after] = await other.numbers.numbersOf(['d']);
      expect(after).toBeGreaterThan(given[2]!);
      expect(after).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
      expect(await store.numbers.idOf(after!)).toBe('d');
      expect(await store.numbers.idOf(given[0]!)).toBeNull();
    } finally {
      redis.disconnect();
      await store.close();
      await other.close();
    }
  });
});
