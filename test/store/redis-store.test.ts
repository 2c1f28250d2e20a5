import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { parseRedisUrl } from '../../src/store/redis/connection.js';
import { aJob } from '../helpers/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { storeContract } from './store.contract.js';

const prefixes = prefixPool('std');
afterAll(() => prefixes.sweep());

const make = (partitions = 8) => new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), nodeId: 'test-node', partitions });

storeContract('redis standalone (8 partitions)', () => make());
storeContract('redis standalone (1 partition)', () => make(1));

describe('RedisStore on standalone Redis', () => {
  it('parses the three URL forms and refuses a bad one with E_CONFIG', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2?prefix=x&partitions=4')).toEqual({
      connection: { mode: 'standalone', host: '127.0.0.1', port: 6380, db: 2 },
      prefix: 'x',
      partitions: 4,
    });
    expect(parseRedisUrl('redis-sentinel://:secret@127.0.0.1:7020,127.0.0.1:7021/mymaster').connection).toEqual({
      mode: 'sentinel',
      sentinels: [{ host: '127.0.0.1', port: 7020 }, { host: '127.0.0.1', port: 7021 }],
      masterName: 'mymaster',
      db: 0,
      password: 'secret',
    });
    expect(parseRedisUrl('redis-cluster://127.0.0.1:7001,127.0.0.1:7002').connection).toEqual({
      mode: 'cluster',
      nodes: [{ host: '127.0.0.1', port: 7001 }, { host: '127.0.0.1', port: 7002 }],
    });
    expect(() => parseRedisUrl('http://x')).toThrow(expect.objectContaining({ code: 'E_CONFIG', field: 'redis.url' }));
    expect(() => parseRedisUrl('redis-sentinel://127.0.0.1:7020')).toThrow(expect.objectContaining({ code: 'E_CONFIG' }));
    expect(() => parseRedisUrl('redis://127.0.0.1:6379/99')).toThrow(expect.objectContaining({ code: 'E_CONFIG' }));
  });

  it('spreads one topic over the partitions and keeps a pending job compact', async () => {
    const store = make();
    await store.open();
    const jobs = Array.from({ length: 64 }, () => aJob({ topic: 'busy', delayMs: 60_000 }));
    await store.push(jobs, Date.UTC(2026, 0, 1));
    const stats = await store.stats();
    expect(stats.find((s) => s.topic === 'busy')!.counts.delayed).toBe(64);
    const used = new Set(jobs.map((j) => (store as unknown as { part(id: string): number }).part(j.id)));
    expect(used.size).toBeGreaterThan(4);
    await store.close();
  });

  it('groups concurrent pushes and answers each caller with its own jobs', async () => {
    const store = make();
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const jobs = Array.from({ length: 500 }, (_, i) => aJob({ topic: 'grouped', delayMs: i % 2 ? 1000 : 0 }));
    const results = await Promise.all(jobs.map((j) => store.push([j], now)));
    expect(results.map(([r]) => r!.job.id)).toEqual(jobs.map((j) => j.id));
    expect(results.every(([r]) => r!.created)).toBe(true);
    const again = await Promise.all(jobs.slice(0, 10).map((j) => store.push([j], now)));
    expect(again.every(([r]) => !r!.created)).toBe(true);
    await store.close();
  });
});
