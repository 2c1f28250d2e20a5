import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { StoreReset } from '../../src/store/store-notices.js';
import { freeJournalPort } from '../helpers/journal-redis.js';
import { startCluster, waitFor, type RedisServer } from '../helpers/redis-servers.js';

/** Three distinct free ports of the journal tests' range (each checked free when drawn). */
async function threePorts(): Promise<[number, number, number]> {
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await freeJournalPort());
  return [...ports] as [number, number, number];
}

// A real 3-master Cluster: one master that comes back empty is a reset of the partitions (slots) it owns, only.
describe('store resets on Redis Cluster', () => {
  let servers: RedisServer[] = [];
  let url = '';
  beforeAll(async () => {
    const ports = await threePorts();
    servers = await startCluster(ports);
    url = `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('a FLUSHALL on one master is reported for exactly the partitions whose slots it owns', async () => {
    const prefix = `cr${Math.random().toString(36).slice(2, 8)}`;
    const store = new RedisStore({ url, prefix, partitions: 8, nodeId: 'cluster-reset' });
    const resets: StoreReset[] = [];
    store.notices({ onReset: (r) => resets.push(r), onWriteLoss: () => undefined, onWarning: () => undefined });
    await store.open();
    try {
      expect(resets).toEqual([]);
      const markers = Array.from({ length: 8 }, (_, p) => partitionKeys(prefix, p).marker);
      // where each partition's marker lives
      const owned = await Promise.all(
        servers.map(async (s) => {
          const r = new Redis({ port: s.port, host: '127.0.0.1' });
          try {
            const held: number[] = [];
            // a node answers MOVED for a slot it does not own: only the owner says the key exists
            for (const [p, key] of markers.entries()) if ((await r.exists(key).catch(() => 0)) === 1) held.push(p);
            return held;
          } finally {
            r.disconnect();
          }
        }),
      );
      expect(owned.flat().sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      const victim = owned.findIndex((held) => held.length > 0 && held.length < 8);
      expect(victim).toBeGreaterThanOrEqual(0);
      const admin = new Redis({ port: servers[victim]!.port, host: '127.0.0.1' });
      await admin.flushall();
      admin.disconnect();
      await waitFor('the reset to be noticed', async () => resets.length === 1, 10_000);
      expect(resets[0]).toMatchObject({ parts: owned[victim], of: 8 });
    } finally {
      await store.close();
    }
  });
});
