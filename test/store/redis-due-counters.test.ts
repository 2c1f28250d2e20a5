// The due-time counters (src/store/redis/due-counters.ts) against a brute-force count: after a random mix of
// every transition into and out of delayed (push, promote, reserve of due jobs, reserve by id, cancel,
// reschedule, retry and release with a delay, bulk cancel/reschedule/shift, purge), the `due:<topic>` hashes of
// all partitions must hold exactly the delayed jobs' minutes and hours (no field left at 0), and the
// histogram read from the counters must equal the one read from the delayed sets.
import { Redis } from 'ioredis';
import type { Job } from '../../src/core/job.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUE_COUNTER_MS } from '../../src/store/redis/due-counters.js';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RECORD_LAYOUT } from '../../src/store/redis/record-layout.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('duecount');
const PARTITIONS = 4;
const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const TOPICS = ['dc-a', 'dc-b'];

/** A small seeded generator (mulberry32), so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** field → count over every partition's `due:<topic>` hash, as the store holds them. */
async function storedCounters(redis: Redis, prefix: string, topic: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let p = 0; p < PARTITIONS; p++) {
    const fields = await redis.hgetall(`${partitionKeys(prefix, p).topicPrefix}due:${topic}`);
    for (const [field, n] of Object.entries(fields)) out.set(field, (out.get(field) ?? 0) + Number(n));
  }
  return out;
}

/** The same, counted from the jobs' records: the brute force. */
function countedCounters(delayed: readonly Job[], topic: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const job of delayed) {
    if (job.topic !== topic) continue;
    for (const field of [
      `m${Math.floor(job.runAt / DUE_COUNTER_MS.minute)}`,
      `h${Math.floor(job.runAt / DUE_COUNTER_MS.hour)}`,
    ])
      out.set(field, (out.get(field) ?? 0) + 1);
  }
  return out;
}

const sorted = (m: Map<string, number>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1));

describe('RedisStore due-time counters', () => {
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
  beforeAll(() => redis.connect());
  afterAll(async () => {
    await redis.quit();
    await prefixes.sweep();
  });

  for (const seed of [1, 2, 3]) {
    it(`match a brute-force count after a random mix of transitions (seed ${seed})`, async () => {
      const prefix = prefixes.next();
      const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'due', partitions: PARTITIONS });
      await store.open();
      const rnd = random(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const ids: string[] = [];
      let now = T0;
      // Due times within three days, at any millisecond: minute and hour edges are crossed often.
      const later = () => now + 1 + Math.floor(rnd() * 3 * 24 * HOUR);
      try {
        for (let step = 0; step < 400; step++) {
          const r = rnd();
          if (r < 0.3) {
            const jobs = Array.from({ length: 1 + Math.floor(rnd() * 20) }, () =>
              aJob({ topic: pick(TOPICS), runAt: rnd() < 0.1 ? now : later(), ttrMs: 1000 }),
            );
            // Now and then one id twice, or an id pushed before: neither is counted again.
            if (rnd() < 0.2) jobs.push(jobs[0]!);
            if (rnd() < 0.2 && ids.length > 0) jobs.push({ ...aJob({ topic: pick(TOPICS) }), id: pick(ids) });
            await store.pushMany(jobs, now);
            for (const { id } of jobs) if (!ids.includes(id)) ids.push(id);
          } else if (r < 0.4 && ids.length > 0) {
            await store.cancel(pick(ids), now);
          } else if (r < 0.5 && ids.length > 0) {
            await store.reschedule(pick(ids), rnd() < 0.2 ? now : later(), now);
          } else if (r < 0.6) {
            now += Math.floor(rnd() * 6 * HOUR);
            await store.promoteDue(now, 1 + Math.floor(rnd() * 50));
          } else if (r < 0.75) {
            // Reserve (due delayed jobs may be taken straight from their sets), then end or give back each.
            const got = (await store.reserve([pick(TOPICS)], 1 + Math.floor(rnd() * 5), now)).reservations;
            for (const { job, token } of got) {
              const end = rnd();
              if (end < 0.3) await store.retry(job.id, token, now, { runAt: later(), error: 'again' });
              else if (end < 0.5) await store.release(job.id, token, now, { runAt: later() });
              else if (end < 0.6) await store.release(job.id, token, now);
              else if (end < 0.8) await store.finish(job.id, token, now);
              else await store.bury(job.id, token, now, { error: 'no' });
            }
          } else if (r < 0.82 && ids.length > 0) {
            const got = await store.reserveJob(pick(ids), now);
            if (got.ok && rnd() < 0.5)
              await store.retry(got.value.job.id, got.value.token, now, { runAt: later(), error: null });
          } else if (r < 0.9) {
            const action = pick([
              { kind: 'cancel' as const, reason: null },
              { kind: 'reschedule' as const, runAt: later() },
              { kind: 'shift' as const, shiftMs: Math.floor(rnd() * 2 * HOUR) },
            ]);
            const dueFrom = later();
            const selector = {
              topic: pick(TOPICS),
              bizKey: null,
              tag: null,
              state: null,
              dueFrom,
              dueTo: dueFrom + HOUR,
            };
            await store.bulk({ action, selector, limit: 50, cursor: null, dryRun: false }, now);
          } else {
            await store.purge(now, 100);
          }
        }
        const delayed = (await Promise.all(ids.map((id) => store.get(id)))).filter((j) => j?.state === 'delayed');
        for (const topic of TOPICS) {
          const counted = countedCounters(delayed as Job[], topic);
          expect(sorted(await storedCounters(redis, prefix, topic))).toEqual(sorted(counted));
        }
        // The read, from the counters (whole-minute edges) and from the delayed sets (edges 1 ms off), each
        // against the histogram counted from the records.
        const hour = Math.floor(now / HOUR) * HOUR;
        for (const topic of [...TOPICS, undefined]) {
          for (const from of [hour, hour - 1]) {
            const query = { topic, from, to: from + 4 * 24 * HOUR, bucketMs: HOUR };
            const expected = new Array<number>(96).fill(0);
            for (const job of delayed as Job[]) {
              if (topic !== undefined && job.topic !== topic) continue;
              if (job.runAt >= query.from && job.runAt < query.to) expected[Math.floor((job.runAt - from) / HOUR)]!++;
            }
            expect(expected.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
            expect(await store.dueHistogram(query)).toEqual(expected);
          }
        }
      } finally {
        await store.close();
      }
    }, 120_000);
  }

  it('are built in place when a store opens a partition of layout 3 (written before the counters)', async () => {
    const prefix = prefixes.next();
    const options = { url: 'redis://127.0.0.1:6379', prefix, nodeId: 'due', partitions: PARTITIONS };
    const before = new RedisStore(options);
    await before.open();
    const jobs = Array.from({ length: 300 }, (_, i) => aJob({ topic: TOPICS[i % 2]!, runAt: T0 + 1 + i * 997_001 }));
    await before.pushMany(jobs, T0);
    await before.cancel(jobs[0]!.id, T0);
    const built = await Promise.all(TOPICS.map((topic) => storedCounters(redis, prefix, topic)));
    await before.close();
    // As a layout-3 delayq left it: no counters, and its mark.
    for (let p = 0; p < PARTITIONS; p++) {
      const k = partitionKeys(prefix, p);
      await redis.del(...TOPICS.map((topic) => `${k.topicPrefix}due:${topic}`));
      await redis.hset(k.counts, '#layout', '3');
    }
    const after = new RedisStore(options);
    await after.open();
    try {
      expect(await Promise.all(TOPICS.map((topic) => storedCounters(redis, prefix, topic)))).toEqual(built);
      expect(built[0]!.size).toBeGreaterThan(0);
      for (let p = 0; p < PARTITIONS; p++)
        expect(await redis.hget(partitionKeys(prefix, p).counts, '#layout')).toBe(String(RECORD_LAYOUT));
      const day = { from: T0, to: T0 + 4 * 24 * HOUR, bucketMs: HOUR };
      expect((await after.dueHistogram(day)).reduce((a, b) => a + b, 0)).toBe(299);
    } finally {
      await after.close();
    }
  });
});
