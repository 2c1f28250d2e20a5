import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/create-service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { Store } from '../../src/store/store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { redisReadCost } from '../helpers/redis-read-cost.js';

const prefixes = prefixPool('startcost');
afterAll(() => prefixes.sweep());

/** Enough jobs that a read of them all shows: far more than a page, a counter hash or an index head. */
const BACKLOG = 20_000;
const PARTITIONS = 4;
/**
 * The timer's batch: a range read with a LIMIT counts its LIMIT (the instrument cannot tell what it held), so a
 * small batch keeps the pages the timer reads from hiding a read of the backlog.
 */
const BATCH = 10;
/**
 * The most a start may touch (about 400 here): a few commands per partition, each a head, a batch or a small
 * hash. A partition holds 5,000 jobs.
 */
const MOST_TOUCHED = 1000;
const DAY_MS = 86_400_000;

/** Resolves after the store's first promoteDue (the timer's first tick) has answered. */
function firstTick(store: Store): Promise<void> {
  const promoteDue = store.promoteDue.bind(store);
  return new Promise((resolve) => {
    store.promoteDue = async (...args) => {
      const answer = await promoteDue(...args);
      resolve();
      return answer;
    };
  });
}

describe('the Redis store at start', () => {
  it(`opens on ${BACKLOG} jobs, runs its first timer tick and answers stats, touching no more than a page`, async () => {
    const prefix = prefixes.next();
    const now = Date.now();
    const before = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'seed', partitions: PARTITIONS });
    await before.open();
    for (let i = 0; i < BACKLOG; i += 1000) {
      const jobs = Array.from({ length: 1000 }, (_, k) => {
        const n = i + k;
        return aJob({ now, topic: `t-${n % 4}`, delayMs: DAY_MS + n * 1000, bizKey: `b-${n % 50}` });
      });
      await before.pushMany(jobs, now);
    }
    await before.close();

    const config = loadConfig({
      env: {},
      overrides: {
        store: { kind: 'redis' },
        redis: { prefix, partitions: PARTITIONS },
        scheduler: { batchSize: BATCH },
      },
    });
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'start', partitions: PARTITIONS });
    const ticked = firstTick(store);
    const service = createService(config, { store });
    const { value: stats, touched } = await redisReadCost(prefix).measure(async () => {
      await service.start();
      await ticked;
      // The timer's other work runs when it falls due; run it once here, as at a first wake that finds it due.
      await store.listLapsed(now, BATCH);
      await store.expireDue(now, BATCH);
      await store.purge(now - config.scheduler.retentionMs, BATCH);
      await store.purgeRetained(now, BATCH);
      await store.nextWakeAt();
      return service.topics.stats();
    });
    try {
      expect(stats.reduce((n, t) => n + t.counts.delayed, 0)).toBe(BACKLOG);
      expect(touched).toBeLessThanOrEqual(MOST_TOUCHED);
    } finally {
      await service.close();
    }
  });
});
