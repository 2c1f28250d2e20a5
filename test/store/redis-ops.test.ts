import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { startRedis, waitFor, type RedisServer } from '../helpers/redis-servers.js';

// Scratch servers of our own (7030, 7031): these tests change server config or kill the server.
describe('RedisStore refuses a Redis that may evict its keys', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis(7030, ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru']);
  });
  afterAll(() => server.stop());

  it('fails to open on allkeys-* with E_CONFIG naming the policy, and opens on volatile-* or noeviction', async () => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:7030', nodeId: 'n' });
    await expect(store.open()).rejects.toMatchObject({
      code: 'E_CONFIG',
      message: expect.stringContaining('allkeys-lru'),
    });
    const admin = new Redis({ port: 7030, host: '127.0.0.1' });
    for (const policy of ['volatile-lru', 'noeviction']) {
      await admin.config('SET', 'maxmemory-policy', policy);
      await store.open();
      await store.pushMany([aJob()], Date.now());
      await store.close();
    }
    await admin.quit();
  });
});

describe('RedisStore when Redis goes away', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis(7031);
  });
  afterAll(() => server.stop());

  it('fails fast with E_STORE_UNAVAILABLE, buffers nothing, and recovers by itself when Redis returns', async () => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:7031', nodeId: 'n', commandTimeoutMs: 1000 });
    const service = new DelayqService({ store, clock: store.clock });
    await service.start();
    await service.push({ topic: 'loss', delayMs: 0 });
    await server.stop();

    const startedAt = Date.now();
    const attempts = await Promise.allSettled(
      Array.from({ length: 500 }, () => service.push({ topic: 'loss', delayMs: 0 })),
    );
    expect(
      attempts.every((a) => a.status === 'rejected' && (a.reason as { code: string }).code === 'E_STORE_UNAVAILABLE'),
    ).toBe(true);
    await expect(service.reserve({ topics: ['loss'] })).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
    await expect(store.get('anything')).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
    expect(Date.now() - startedAt).toBeLessThan(5000);
    // enableOfflineQueue is off: nothing waits in ioredis for the server to come back.
    const client = (store as unknown as { client: { offlineQueue: { length: number } } }).client;
    expect(client.offlineQueue.length).toBe(0);

    server = await startRedis(7031);
    await waitFor(
      'the store to serve again',
      async () => {
        await service.push({ topic: 'loss', delayMs: 0 });
        return true;
      },
      15_000,
      100,
    );
    const [r] = await service.reserve({ topics: ['loss'], count: 1 });
    expect(r!.job.topic).toBe('loss');
    await service.finish(r!.job.id, r!.token);
    // The restarted server lost its data (no persistence): the store registered its node name again.
    await waitFor('the node name to be registered again', async () =>
      (await service.history(r!.job.id)).every((h) => h.node === 'n'),
    );
    await service.close();
  });
});
