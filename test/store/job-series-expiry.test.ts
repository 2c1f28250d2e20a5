/**
 * The series slots leave the store by themselves once their tier stops keeping them (store/job-series.ts):
 * SQLite deletes them as later slots are written, Redis gives each key a relative expiry.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { SERIES_TIERS } from '../../src/store/job-series.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const T0 = Date.UTC(2026, 0, 1);
const [FINE, COARSE] = SERIES_TIERS;
const HOUR = 3_600_000;

describe('series expiry on SQLite', () => {
  it('drops a slot once its tier no longer keeps it, and keeps the coarser one', async () => {
    const store = new SqliteStore({ path: ':memory:', nodeId: 'expiry' });
    await store.open();
    await store.series.add([{ topic: 'mail', at: T0, counts: { push: 1 } }], T0);
    const read = async (slotMs: number) =>
      (await store.series.read({ slotMs, from: T0 - HOUR, to: T0 + HOUR, topic: 'mail' })).length;
    // Kept while the fine tier keeps it (two hours after the slot ends)…
    await store.series.add([{ topic: 'mail', at: T0 + 2 * HOUR, counts: { push: 1 } }], T0 + 2 * HOUR);
    expect([await read(FINE!.slotMs), await read(COARSE!.slotMs)]).toEqual([1, 1]);
    // …gone after; the five-minute slot stays for 25 hours.
    await store.series.add([{ topic: 'mail', at: T0 + 3 * HOUR, counts: { push: 1 } }], T0 + 3 * HOUR);
    expect([await read(FINE!.slotMs), await read(COARSE!.slotMs)]).toEqual([0, 1]);
    await store.series.setBacklog(T0 + 26 * HOUR, [], T0 + 26 * HOUR);
    expect(await read(COARSE!.slotMs)).toBe(0);
    await store.close();
  });
});

describe('series expiry on Redis', () => {
  const prefixes = prefixPool('series-ttl');
  afterAll(() => prefixes.sweep());

  it('gives every key the time its tier still keeps the slot', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, partitions: 1, nodeId: 'expiry' });
    await store.open();
    const admin = new Redis({ host: '127.0.0.1', port: 6379 });
    try {
      const now = T0 + 4_000;
      await store.series.add([{ topic: 'mail', at: T0, counts: { push: 1 } }], now);
      expect(await store.series.claimBacklogSample(T0)).toBe(true);
      const ttl = (key: string) => admin.pttl(`{${prefix}:series}:${key}`);
      const fine = FINE!.slotMs + FINE!.keepMs - 4_000;
      const coarse = COARSE!.slotMs + COARSE!.keepMs - 4_000;
      for (const [key, expected] of [
        [`${FINE!.slotMs}:${T0}:t:mail`, fine],
        [`${FINE!.slotMs}:${T0}:topics`, fine],
        [`${COARSE!.slotMs}:${T0}:t:mail`, coarse],
        [`${COARSE!.slotMs}:${T0}:topics`, coarse],
        [`claim:${T0}`, 2 * FINE!.slotMs],
      ] as const) {
        const left = await ttl(key);
        expect(left, key).toBeLessThanOrEqual(expected);
        expect(left, key).toBeGreaterThan(expected - 5_000);
      }
    } finally {
      admin.disconnect();
      await store.close();
    }
  });
});
