// The Redis store's id index (lua/id-index.lua): each topic's ids in small pages that list.lua walks from
// the cursor, so a listing over a large backlog answers in one short script, pages by cursor without gaps
// or repeats while jobs are deleted, stops at its budget where a filter matches rarely, and is built slice
// by slice when a store opens a partition written before it (layout 6).
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { NewJob } from '../../src/core/job.js';
import { newJobId } from '../../src/core/ids.js';
import { ID_PAGE_ENTRIES, LIST_BUDGET } from '../../src/store/redis/id-index.js';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RECORD_LAYOUT } from '../../src/store/redis/record-layout.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { JobQuery } from '../../src/store/store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { redisReadCost } from '../helpers/redis-read-cost.js';

const prefixes = prefixPool('idindex');
const T0 = Date.UTC(2026, 0, 1);
const DAY_MS = 86_400_000;

/** Checks a topic's index in every partition (bounds in order; each page within its bounds, size and encoding); its ids. */
async function indexedIds(
  redis: Redis,
  prefix: string,
  partitions: number,
  topic: string,
  keys = (tp: string) => ({ dir: `${tp}ids:${topic}`, pages: `${tp}idp:${topic}#` }),
): Promise<string[]> {
  const all: string[] = [];
  for (let p = 0; p < partitions; p++) {
    const { dir, pages } = keys(partitionKeys(prefix, p).topicPrefix);
    const bounds = await redis.zrange(dir, 0, '-1');
    bounds.forEach((bound, i) => expect(i === 0 || bounds[i - 1]! < bound).toBe(true));
    for (const [i, bound] of bounds.entries()) {
      const key = pages + bound;
      const page = await redis.zrange(key, 0, '-1');
      // Never written past ID_PAGE_ENTRIES, so never turned into a skiplist (which would stay one).
      expect(await redis.object('ENCODING', key)).toBe('listpack');
      expect(page.length).toBeGreaterThan(0);
      expect(page.length).toBeLessThanOrEqual(ID_PAGE_ENTRIES);
      expect(page[0]! >= bound).toBe(true);
      const upper = bounds[i + 1];
      if (upper !== undefined) expect(page[page.length - 1]! < upper).toBe(true);
      all.push(...page);
    }
  }
  return all.sort();
}

/** Every page of a listing, following `next` to the end. */
async function walk(store: RedisStore, query: Omit<JobQuery, 'cursor'>, between?: () => Promise<void>) {
  const seen: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const page = await store.list({ ...query, cursor });
    seen.push(...page.jobs.map((j) => j.id));
    cursor = page.next ?? undefined;
    pages++;
    await between?.();
  } while (cursor);
  return { seen, pages };
}

const sorted = (ids: readonly string[]) => [...ids].sort();

describe('RedisStore id index', () => {
  let redis: Redis;
  let store: RedisStore | undefined;
  beforeAll(() => {
    redis = new Redis({ host: '127.0.0.1', port: 6379 });
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });
  afterAll(async () => {
    await prefixes.sweep();
    await redis.quit();
  });
  const open = async (prefix: string, partitions: number) => {
    store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'id-index-node', partitions });
    await store.open();
    return store;
  };

  it('keeps ids pushed out of order in bounded pages, and drops deleted ones', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 2);
    // aJob's ids do not sort in push order, so pages fill and split everywhere, not only at the end.
    const jobs = Array.from({ length: 3000 }, () => aJob({ topic: 'mixed', delayMs: 1000 }));
    for (let i = 0; i < jobs.length; i += 500) await s.pushMany(jobs.slice(i, i + 500), T0);
    expect(await indexedIds(redis, prefix, 2, 'mixed')).toEqual(sorted(jobs.map((j) => j.id)));
    const gone = jobs.filter((_, i) => i % 3 === 0).map((j) => j.id);
    for (const id of gone) await s.cancel(id, T0);
    expect(await s.deleteEndedMany(gone)).toBe(gone.length);
    const kept = sorted(jobs.filter((_, i) => i % 3 !== 0).map((j) => j.id));
    expect(await indexedIds(redis, prefix, 2, 'mixed')).toEqual(kept);
    expect((await walk(s, { topic: 'mixed', limit: 97 })).seen).toEqual(kept);
  });

  it('lists the first page of a 200k-job topic in one short script, and pages every job once while jobs are deleted', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 8);
    const ids: string[] = [];
    for (let i = 0; i < 200_000; i += 2000) {
      const batch: NewJob[] = Array.from({ length: 2000 }, (_, k) =>
        aJob({ id: newJobId(T0 + i + k), topic: 'big', delayMs: DAY_MS + ((i + k) % 997) * 60_000 }),
      );
      ids.push(...batch.map((j) => j.id));
      await s.pushMany(batch, T0);
    }
    ids.sort();

    const cost = redisReadCost(prefix);
    const started = performance.now();
    const first = await cost.measure(() => s.list({ topic: 'big', limit: 100 }));
    const tookMs = performance.now() - started;
    expect(first.value.jobs.map((j) => j.id)).toEqual(ids.slice(0, 100));
    // Each of 8 partitions reads its next 101 ids and their records, and a few directory entries.
    expect(first.touched).toBeLessThanOrEqual(8 * 3 * 101);
    // Generous for a shared machine (MONITOR is on, too); the whole-partition sort took seconds here.
    expect(tookMs).toBeLessThan(1000);

    // Between pages, delete 25 random jobs: some already listed, some ahead of the cursor.
    const deleted = new Set<string>();
    const deleteSome = async () => {
      const chosen = Array.from({ length: 25 }, () => ids[Math.floor(Math.random() * ids.length)]!).filter(
        (id) => !deleted.has(id),
      );
      for (const id of new Set(chosen)) {
        await s.cancel(id, T0);
        deleted.add(id);
      }
      await s.deleteEndedMany([...new Set(chosen)]);
    };
    const { seen } = await walk(s, { topic: 'big', limit: 1000 }, deleteSome);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(sorted(seen));
    // Every job never deleted was listed; a job deleted before the walk reached it was not.
    const shown = new Set(seen);
    for (const id of ids) if (!deleted.has(id)) expect(shown.has(id)).toBe(true);
    expect(seen.length).toBeGreaterThanOrEqual(ids.length - deleted.size);
    expect(seen.length).toBeLessThan(ids.length);
  }, 120_000);

  it('answers short pages with a next where a filter matches rarely, and the walk still finds every match', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 1);
    const jobs = Array.from({ length: 3 * LIST_BUDGET }, (_, i) =>
      aJob({ id: newJobId(T0 + i), topic: 'rare', delayMs: DAY_MS }),
    );
    for (let i = 0; i < jobs.length; i += 1000) await s.pushMany(jobs.slice(i, i + 1000), T0);
    const wanted = [jobs[10]!.id, jobs[jobs.length - 10]!.id];
    for (const id of wanted) await s.cancel(id, T0);

    const cost = redisReadCost(prefix);
    const first = await cost.measure(() => s.list({ topic: 'rare', state: 'cancelled', limit: 10 }));
    expect(first.value.jobs.map((j) => j.id)).toEqual([wanted[0]]);
    expect(first.value.next).not.toBeNull();
    // One call stops at its budget (ids read plus records looked at), with a directory entry per page and
    // a read's LIMIT counted whole: about the budget, never the whole topic.
    expect(first.touched).toBeLessThanOrEqual(LIST_BUDGET * 1.25);
    const { seen, pages } = await walk(s, { topic: 'rare', state: 'cancelled', limit: 10 });
    expect(seen).toEqual(wanted);
    expect(pages).toBeGreaterThan(1);
    // The same without a topic (the state alone, every topic's index merged).
    expect((await walk(s, { state: 'cancelled', limit: 10 })).seen).toEqual(wanted);
  });

  it("reads a topic's few ready or dead jobs from their set: a complete page in one call", async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 1);
    const waiting = Array.from({ length: 2 * LIST_BUDGET }, (_, i) =>
      aJob({ id: newJobId(T0 + i), topic: 'few', delayMs: DAY_MS }),
    );
    const ready = Array.from({ length: 3 }, (_, i) => aJob({ id: newJobId(T0 + 3 * LIST_BUDGET + i), topic: 'few' }));
    for (let i = 0; i < waiting.length; i += 1000) await s.pushMany(waiting.slice(i, i + 1000), T0);
    await s.pushMany(ready, T0);
    const page = await s.list({ topic: 'few', state: 'ready', limit: 10 });
    expect(page.jobs.map((j) => j.id)).toEqual(ready.map((j) => j.id));
    expect(page.next).toBeNull();
    const first = await s.list({ topic: 'few', state: 'ready', limit: 2 });
    expect(first.jobs.map((j) => j.id)).toEqual(ready.slice(0, 2).map((j) => j.id));
    const rest = await s.list({ topic: 'few', state: 'ready', limit: 2, cursor: first.next! });
    expect(rest).toEqual({ jobs: [expect.objectContaining({ id: ready[2]!.id })], next: null });
  });

  it('lists a state alone or no filter by merging the topics of each partition in id order', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 4);
    const topics = ['a', 'b', 'c'];
    const jobs = Array.from({ length: 2400 }, (_, i) =>
      aJob({ topic: topics[i % 3]!, delayMs: i % 4 === 0 ? 0 : DAY_MS }),
    );
    for (let i = 0; i < jobs.length; i += 600) await s.pushMany(jobs.slice(i, i + 600), T0);
    const all = sorted(jobs.map((j) => j.id));
    expect((await walk(s, { limit: 77 })).seen).toEqual(all);
    const ready = sorted(jobs.filter((_, i) => i % 4 === 0).map((j) => j.id));
    expect((await walk(s, { state: 'ready', limit: 50 })).seen).toEqual(ready);
    expect((await walk(s, { topic: 'b', state: 'delayed', limit: 1000 })).seen).toEqual(
      sorted(jobs.filter((j, i) => j.topic === 'b' && i % 4 !== 0).map((j) => j.id)),
    );
  });

  it('lists without a topic over many topics: less of each per round, every job once in id order', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 2);
    // 600 topics: a round reads 3 ids of each (half the budget), not a page of each.
    const jobs = Array.from({ length: 3000 }, (_, i) => aJob({ topic: `t${i % 600}`, delayMs: DAY_MS }));
    for (let i = 0; i < jobs.length; i += 1000) await s.pushMany(jobs.slice(i, i + 1000), T0);
    const cost = redisReadCost(prefix);
    const first = await cost.measure(() => s.list({ limit: 100 }));
    expect(first.value.next).not.toBeNull();
    expect(first.touched).toBeLessThanOrEqual(2 * LIST_BUDGET * 1.5);
    const { seen } = await walk(s, { limit: 100 });
    expect(seen).toEqual(sorted(jobs.map((j) => j.id)));
  });

  it('pages a label past a page of jobs, keeps a small one as one set, and lists both in id order', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 1);
    const tp = partitionKeys(prefix, 0).topicPrefix;
    const big = Array.from({ length: 700 }, (_, i) => aJob({ topic: i % 2 ? 'p' : 'q', bizKey: 'big', tag: 'many' }));
    for (let i = 0; i < big.length; i += 60) await s.pushMany(big.slice(i, i + 60), T0);
    const tagged = Array.from({ length: 5 }, () => aJob({ topic: 'p', tag: 'few' }));
    await s.pushMany(tagged, T0);
    const bizPages = (t: string) => ({ dir: `${t}bizkeyd:big`, pages: `${t}bizkeyp:big#` });
    expect(await indexedIds(redis, prefix, 1, 'big', bizPages)).toEqual(sorted(big.map((j) => j.id)));
    expect(await redis.exists(`${tp}bizkey:big`, `${tp}tag:many`)).toBe(0);
    expect(await redis.exists(`${tp}tagd:many`)).toBe(1);
    expect(await redis.zrange(`${tp}tag:few`, 0, '-1')).toEqual(sorted(tagged.map((j) => j.id)));
    expect((await walk(s, { bizKey: 'big', limit: 90 })).seen).toEqual(sorted(big.map((j) => j.id)));
    expect((await walk(s, { bizKey: 'big', topic: 'p', limit: 90 })).seen).toEqual(
      sorted(big.filter((j) => j.topic === 'p').map((j) => j.id)),
    );
    const gone = big.filter((_, i) => i % 4 === 0).map((j) => j.id);
    for (const id of gone) await s.cancel(id, T0);
    expect(await s.deleteEndedMany(gone)).toBe(gone.length);
    const kept = sorted(big.filter((_, i) => i % 4 !== 0).map((j) => j.id));
    expect(await indexedIds(redis, prefix, 1, 'big', bizPages)).toEqual(kept);
    expect((await walk(s, { bizKey: 'big', limit: 1000 })).seen).toEqual(kept);

    // A set that grew past a page before labels were paged stays one set, read and added to as before.
    const old = Array.from({ length: 200 }, () => aJob({ topic: 'p', bizKey: 'old' }));
    await s.pushMany(old, T0);
    const oldIds = await indexedIds(redis, prefix, 1, 'old', (t) => ({
      dir: `${t}bizkeyd:old`,
      pages: `${t}bizkeyp:old#`,
    }));
    const [, pageKeys] = await redis.scan('0', 'MATCH', `${tp}bizkeyp:old#*`, 'COUNT', 10_000);
    await redis.del(`${tp}bizkeyd:old`, ...pageKeys);
    await redis.zadd(`${tp}bizkey:old`, ...oldIds.flatMap((id) => [0, id]));
    const more = Array.from({ length: 10 }, () => aJob({ topic: 'p', bizKey: 'old' }));
    await s.pushMany(more, T0);
    expect(await redis.zcard(`${tp}bizkey:old`)).toBe(210);
    expect((await walk(s, { bizKey: 'old', limit: 64 })).seen).toEqual(sorted([...old, ...more].map((j) => j.id)));
  });

  it('is built slice by slice when a store opens a partition of layout 6 (written before it)', async () => {
    const prefix = prefixes.next();
    const s = await open(prefix, 2);
    const jobs = Array.from({ length: 1500 }, (_, i) => aJob({ topic: i % 2 ? 'x' : 'y', delayMs: 1000 }));
    await s.pushMany(jobs, T0);
    await s.close();
    store = undefined;
    // As a layout-6 delayq left it: no id index, and its mark.
    for (let p = 0; p < 2; p++) {
      const k = partitionKeys(prefix, p);
      for (const pattern of [`${k.topicPrefix}ids:*`, `${k.topicPrefix}idp:*`]) {
        const [, keys] = await redis.scan('0', 'MATCH', pattern, 'COUNT', 100_000);
        if (keys.length) await redis.del(...keys);
      }
      await redis.hset(k.counts, '#layout', '6');
    }
    expect(await indexedIds(redis, prefix, 2, 'x')).toEqual([]);
    const after = await open(prefix, 2);
    for (const topic of ['x', 'y'])
      expect(await indexedIds(redis, prefix, 2, topic)).toEqual(
        sorted(jobs.filter((j) => j.topic === topic).map((j) => j.id)),
      );
    expect((await walk(after, { topic: 'x', limit: 100 })).seen).toHaveLength(750);
    for (let p = 0; p < 2; p++)
      expect(await redis.hget(partitionKeys(prefix, p).counts, '#layout')).toBe(String(RECORD_LAYOUT));
  });
});
