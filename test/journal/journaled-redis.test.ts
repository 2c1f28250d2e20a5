import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { MARKER_ID } from '../../src/journal/journal-jobs.js';
import { DelayqService } from '../../src/service/service.js';
import { Redis } from 'ioredis';
import { wakeChannel } from '../../src/store/redis/keys.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { waitFor } from '../helpers/http-server.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { storeContract } from '../../src/testing/store-contract/store.contract.js';
import { wipeUnderLoad } from './wipe-scenario.js';
import { redisReadCost } from '../helpers/redis-read-cost.js';

// The decorator over the real RedisStore. The contract runs on the shared Redis (random prefix per test);
// the wipe tests run on a redis-server of our own (FLUSHALL and restarts never touch 6379).
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
const prefixes = prefixPool('journal');
let redis: JournalRedis;
beforeAll(async () => {
  redis = await startJournalRedis();
});
afterAll(async () => {
  await redis.stop();
  await prefixes.sweep();
  for (const db of databases) await db.drop();
});

for (const db of databases) {
  storeContract(
    `journaled redis + ${db.dialect}`,
    async () => {
      await db.truncate();
      const inner = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), nodeId: 'test-node' });
      return new JournaledStore(inner, db.journal({ maxConnections: 4 }), { nodeId: 'test-node' });
    },
    {
      // what the reads touch in the inner store (the journal's side: its counters and indexes, docs/journal.md)
      readCost: (store) => redisReadCost(((store as JournaledStore).inner as RedisStore).prefix),
    },
  );

  describe(`JournaledStore on redis + ${db.dialect}: the inner store loses its data`, () => {
    const open: JournaledStore[] = [];
    const make = async () => {
      await db.truncate();
      await redis.flushAll();
      const clock = new FakeClock();
      const inner = new RedisStore({ url: redis.url, nodeId: 'node-r', commandTimeoutMs: 1000 });
      const store = new JournaledStore(inner, db.journal({ maxConnections: 4 }), {
        nodeId: 'node-r',
        clock,
        horizonMs: 60_000,
      });
      await store.open();
      open.push(store);
      return { store, clock };
    };
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
    });

    it('FLUSHALL under load: every acknowledged unfinished job is delivered after restore, no finished or cancelled one', async () => {
      const { store, clock } = await make();
      await wipeUnderLoad(store, `flush-${db.dialect}`, clock.now(), () => redis.flushAll());
    });

    it('a restart with persistence off under load: the same', async () => {
      const { store, clock } = await make();
      await wipeUnderLoad(store, `restart-${db.dialect}`, clock.now(), () => redis.restart());
    });

    it('the marker is an ordinary job under a reserved topic: hidden from reads, gone after FLUSHALL', async () => {
      const { store, clock } = await make();
      const now = clock.now();
      await store.pushMany([aJob({ topic: 'visible', now })], now);
      expect(await store.inner.get(MARKER_ID)).not.toBeNull();
      expect((await store.stats()).map((s) => s.topic)).toEqual(['visible']);
      expect((await store.list({ limit: 10 })).jobs.map((j) => j.topic)).toEqual(['visible']);
      expect(await store.nextWakeAt()).toBeNull();
      await redis.flushAll();
      expect(await store.inner.get(MARKER_ID)).toBeNull();
      expect(await store.checkInner(now)).toBe('restored');
      expect((await store.stats()).find((s) => s.topic === 'visible')!.counts.ready).toBe(1);
    });

    it('a restore reads only what the inner store held and what is due within the horizon; the far jobs come in when due', async () => {
      const { store, clock } = await make();
      const now = clock.now();
      const topic = `far-${db.dialect}`;
      const near = [0, 1000, 30_000].map((delayMs) => aJob({ topic, now, delayMs }));
      const far = Array.from({ length: 50 }, (_, i) => aJob({ topic, now, delayMs: 5 * 60_000 + i }));
      await store.pushMany([...near, ...far], now);
      // a journal-only row that came within the horizon before the loader took it: the restore loads it too
      const nearing = aJob({ topic, now, delayMs: 2 * 60_000 });
      await store.pushMany([nearing], now);
      const later = now + 90_000;
      expect(await store.inner.get(nearing.id)).toBeNull();

      await redis.flushAll();
      expect(await store.checkInner(later)).toBe('restored');
      // read: the 3 rows the inner store held and the 1 due within the horizon; not the 50 beyond it
      expect(store.status().lastRestore).toMatchObject({ scanned: 4, restored: 4, leftInJournal: 50 });
      for (const j of [...near, nearing]) expect(await store.inner.get(j.id)).not.toBeNull();
      for (const j of far) expect(await store.inner.get(j.id)).toBeNull();

      // the near ones are served; the far ones are not in the inner store to be served
      const reserve = async (at: number) =>
        (await store.reserve([topic], 100, at)).reservations.map((r) => r.job.id).sort();
      expect(await store.loadDue(later, 100)).toBe(0);
      await store.promoteDue(nearing.runAt, 100);
      expect(await reserve(nearing.runAt)).toEqual([...near, nearing].map((j) => j.id).sort());

      // the far ones: loaded when they enter the horizon, delivered at their due time, not before
      expect(await store.loadDue(far[0]!.runAt - 60_000, 100)).toBe(0);
      expect(await store.loadDue(far[0]!.runAt - 60_000 + 1, 100)).toBe(1);
      expect(await store.inner.get(far[0]!.id)).toMatchObject({ state: 'delayed', runAt: far[0]!.runAt });
      await store.promoteDue(far[0]!.runAt - 1, 100);
      expect(await store.inner.get(far[0]!.id)).toMatchObject({ state: 'delayed' });
      await store.promoteDue(far[0]!.runAt, 100);
      expect(await reserve(far[0]!.runAt)).toEqual([far[0]!.id]);
      expect(await store.loadDue(far.at(-1)!.runAt, 100)).toBe(49);
      await store.promoteDue(far.at(-1)!.runAt, 100);
      expect(await reserve(far.at(-1)!.runAt)).toEqual(
        far
          .slice(1)
          .map((j) => j.id)
          .sort(),
      );
    });
  });
}

describe('JournaledStore between processes', () => {
  it("wakes a peer's long-poll through the inner store's wake-ups", async () => {
    const db = databases[0]!;
    await db.truncate();
    const prefix = prefixes.next();
    const serviceOn = (nodeId: string) => {
      const inner = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId });
      const store = new JournaledStore(inner, db.journal({ maxConnections: 2 }), { nodeId, clock: inner.clock });
      // Timers that would not wake the consumer within the test: only a peer's message can.
      return new DelayqService({ store, nodeId, clock: inner.clock, timer: { safetyWakeMs: 30_000 } });
    };
    const a = serviceOn('a');
    const b = serviceOn('b');
    await a.start();
    await b.start();
    try {
      // The subscriptions are asynchronous: wait until both services listen on the wake-up channel.
      const probe = new Redis('redis://127.0.0.1:6379');
      try {
        await waitFor(async () => {
          const [, listeners] = (await probe.pubsub('NUMSUB', wakeChannel(prefix))) as [string, number];
          return listeners >= 2;
        }, 'both services to subscribe');
      } finally {
        probe.disconnect();
      }
      const startedAt = Date.now();
      const waiting = b.reserve({ topics: ['peer'], count: 1, waitMs: 10_000 });
      await waitFor(() => b.waitingConsumers === 1, "b's long-poll to wait");
      const { job } = await a.push({ topic: 'peer', body: 'now' }); // due at once: ready on a, nothing to promote
      const got = await waiting;
      expect(got.map((r) => r.job.id)).toEqual([job.id]);
      expect(Date.now() - startedAt).toBeLessThan(2000);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
