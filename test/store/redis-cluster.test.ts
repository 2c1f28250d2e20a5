import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { startCluster, waitFor, type RedisServer } from '../helpers/redis-servers.js';
import { storeContract } from '../../src/testing/store-contract/store.contract.js';
import { REDIS_WITHOUT_GROUPS } from '../helpers/redis-without-groups.js';
import { redisReadCost } from '../helpers/redis-read-cost.js';

// A real 3-master Cluster on 7001–7003: every script must stay inside one slot.
const PORTS: [number, number, number] = [7001, 7002, 7003];
const URL = `redis-cluster://${PORTS.map((p) => `127.0.0.1:${p}`).join(',')}`;
let servers: RedisServer[] = [];

beforeAll(async () => {
  servers = await startCluster(PORTS);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

const make = () =>
  new RedisStore({ url: URL, prefix: `c${Math.random().toString(36).slice(2, 8)}`, nodeId: 'cluster-node' });

storeContract('redis cluster (3 masters)', make, {
  withoutGroups: REDIS_WITHOUT_GROUPS,
  readCost: (store) => redisReadCost((store as RedisStore).prefix, PORTS),
});

describe('RedisStore on Redis Cluster', () => {
  it('spreads one topic over slots owned by every master', async () => {
    const store = make();
    await store.open();
    const now = Date.now();
    const jobs = Array.from({ length: 200 }, () => aJob({ topic: 'hot', now }));
    await store.pushMany(jobs, now);
    const perMaster = await Promise.all(
      servers.map(async (s) => {
        const { Redis } = await import('ioredis');
        const r = new Redis({ port: s.port, host: '127.0.0.1' });
        const keys = await r.keys(`{${store.prefix}:*}:ready:hot`);
        await r.quit();
        return keys.length;
      }),
    );
    expect(perMaster.every((n) => n > 0)).toBe(true);
    const reserved = (await store.reserve(['hot'], 100, now)).reservations;
    expect(reserved).toHaveLength(100);
    expect(new Set(reserved.map((r) => r.job.id)).size).toBe(100);
    await store.close();
  });

  it('wakes a peer process through Cluster pub/sub', async () => {
    const prefix = `w${Math.random().toString(36).slice(2, 8)}`;
    const a = new RedisStore({ url: URL, prefix, nodeId: 'a' });
    const b = new RedisStore({ url: URL, prefix, nodeId: 'b' });
    await a.open();
    await b.open();
    const heard: string[] = [];
    b.watch({ onReady: (topics) => heard.push(...topics), onDue: () => undefined });
    const now = Date.now();
    await waitFor('the peer to hear a ready push', async () => {
      await a.pushMany([aJob({ topic: 'cluster-wake', now })], now);
      await new Promise((r) => setTimeout(r, 20));
      return heard.includes('cluster-wake');
    });
    expect(heard).toContain('cluster-wake');
    await a.close();
    await b.close();
  });

  it('refuses a group, a groupConcurrency, a groupRateLimit and a group pause naming the field, storing nothing', async () => {
    const store = make();
    const service = new DelayqService({ store, clock: store.clock, runTimer: false });
    await service.start();
    try {
      const refused = { code: 'E_VALIDATION', message: expect.stringContaining('Redis Cluster') };
      await expect(service.push({ topic: 'gr.cluster', group: 'a' })).rejects.toMatchObject({
        ...refused,
        field: 'group',
      });
      await expect(service.topics.putSettings('gr.cluster', { groupConcurrency: 2 })).rejects.toMatchObject({
        ...refused,
        field: 'groupConcurrency',
      });
      await expect(
        service.topics.putSettings('gr.cluster', { groupRateLimit: { perSecond: 2 } }),
      ).rejects.toMatchObject({ ...refused, field: 'groupRateLimit' });
      await expect(service.topics.pauseGroup('gr.cluster', 'a')).rejects.toMatchObject({ ...refused, field: 'group' });
      expect((await service.list({ topic: 'gr.cluster', limit: 10 })).jobs).toEqual([]);
      expect(await service.topics.settings('gr.cluster')).toEqual({});
    } finally {
      await service.close();
    }
  });
});

describe('RedisStore partition count on a Cluster', () => {
  const cluster = async () => {
    const { Cluster } = await import('ioredis');
    const client = new Cluster(PORTS.map((port) => ({ host: '127.0.0.1', port })));
    await client.ping();
    return client;
  };

  it('chooses the automatic count so the partitions spread evenly over the masters, and keeps it', async () => {
    const prefix = `auto${Math.random().toString(36).slice(2, 8)}`;
    const store = new RedisStore({ url: URL, prefix, nodeId: 'auto', partitions: 'auto' });
    await store.open();
    const count = store.partitions;
    await store.close();
    const client = await cluster();
    try {
      const slots = await client.cluster('SLOTS');
      const masterOf = (slot: number) => slots.findIndex(([from, to]) => slot >= from && slot <= to);
      const tags = (await client.hget(`{${prefix}:layout}`, 'tags'))!.split(',');
      expect(tags).toHaveLength(count);
      const perMaster = [0, 0, 0];
      for (const tag of tags) perMaster[masterOf(Number(await client.cluster('KEYSLOT', `{${prefix}:${tag}}`)))]!++;
      expect(perMaster).toEqual([3, 3, 3]);
      // The jobs are where the tags say: a pushed job's record is in exactly one of those partitions.
      const now = Date.now();
      const job = aJob({ topic: 'spread', now });
      const writer = new RedisStore({ url: URL, prefix, nodeId: 'w', partitions: 'auto' });
      await writer.open();
      await writer.pushMany([job], now);
      expect((await writer.get(job.id))?.topic).toBe('spread');
      await writer.close();
      const holders = await Promise.all(tags.map((tag) => client.hexists(`{${prefix}:${tag}}:jobs`, job.id)));
      expect(holders.filter((h) => h === 1)).toHaveLength(1);
    } finally {
      client.disconnect();
    }
    // Another process, automatic or configured with the same count, uses it; another count is refused.
    const again = new RedisStore({ url: URL, prefix, nodeId: 'again', partitions: 'auto' });
    await again.open();
    expect(again.partitions).toBe(count);
    await again.close();
    const other = new RedisStore({ url: URL, prefix, nodeId: 'other', partitions: count + 1 });
    await expect(other.open()).rejects.toMatchObject({ code: 'E_CONFIG', field: 'redis.partitions' });
  });

  it('reads data written before the count was recorded in the 8 partitions of that time', async () => {
    const prefix = `old${Math.random().toString(36).slice(2, 8)}`;
    const writer = new RedisStore({ url: URL, prefix, nodeId: 'old', partitions: 8 });
    await writer.open();
    const now = Date.now();
    const jobs = Array.from({ length: 40 }, () => aJob({ topic: 'old', now }));
    await writer.pushMany(jobs, now);
    await writer.close();
    const client = await cluster();
    await client.del(`{${prefix}:layout}`); // as an earlier delayq left it
    client.disconnect();
    const store = new RedisStore({ url: URL, prefix, nodeId: 'new', partitions: 'auto' });
    await store.open();
    try {
      expect(store.partitions).toBe(8);
      expect((await store.reserve(['old'], 100, now)).reservations).toHaveLength(40);
    } finally {
      await store.close();
    }
  });
});
