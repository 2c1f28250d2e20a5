import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { parseRedisUrl } from '../../src/store/redis/connection.js';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { RECORD_LAYOUT } from '../../src/store/redis/record-layout.js';
import type { NewJob } from '../../src/core/job.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { redisReadCost } from '../helpers/redis-read-cost.js';
import { waitFor } from '../helpers/redis-servers.js';
import { backendContract, storeContract } from '../../src/testing/index.js';
import { redisBackend } from '../../src/store/redis/redis-backend.js';

const prefixes = prefixPool('std');
afterAll(() => prefixes.sweep());

const make = (partitions = 8, leaveDueToConsumers?: boolean) =>
  new RedisStore({
    url: 'redis://127.0.0.1:6379',
    prefix: prefixes.next(),
    nodeId: 'test-node',
    partitions,
    leaveDueToConsumers,
  });

backendContract(
  'redis standalone (8 partitions)',
  () =>
    redisBackend({
      url: 'redis://127.0.0.1:6379',
      prefix: prefixes.next(),
      nodeId: 'test-node',
      partitions: 8,
      commandTimeoutMs: 2000,
      connectTimeoutMs: 2000,
    }),
  { readCost: (store) => redisReadCost((store as RedisStore).prefix) },
);
storeContract('redis standalone (1 partition)', () => make(1), {
  readCost: (store) => redisReadCost((store as RedisStore).prefix),
});

describe('RedisStore on standalone Redis', () => {
  it('parses the three URL forms and refuses a bad one with E_CONFIG', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2?prefix=x&partitions=4')).toEqual({
      connection: { mode: 'standalone', host: '127.0.0.1', port: 6380, db: 2 },
      prefix: 'x',
      partitions: 4,
    });
    expect(parseRedisUrl('redis-sentinel://:secret@127.0.0.1:7020,127.0.0.1:7021/mymaster').connection).toEqual({
      mode: 'sentinel',
      sentinels: [
        { host: '127.0.0.1', port: 7020 },
        { host: '127.0.0.1', port: 7021 },
      ],
      masterName: 'mymaster',
      db: 0,
      password: 'secret',
    });
    expect(parseRedisUrl('redis-cluster://127.0.0.1:7001,127.0.0.1:7002').connection).toEqual({
      mode: 'cluster',
      nodes: [
        { host: '127.0.0.1', port: 7001 },
        { host: '127.0.0.1', port: 7002 },
      ],
    });
    expect(() => parseRedisUrl('http://x')).toThrow(expect.objectContaining({ code: 'E_CONFIG', field: 'redis.url' }));
    expect(() => parseRedisUrl('redis-sentinel://127.0.0.1:7020')).toThrow(
      expect.objectContaining({ code: 'E_CONFIG' }),
    );
    expect(() => parseRedisUrl('redis://127.0.0.1:6379/99')).toThrow(expect.objectContaining({ code: 'E_CONFIG' }));
  });

  it('spreads one topic over the partitions and keeps a pending job compact', async () => {
    const store = make();
    await store.open();
    const jobs = Array.from({ length: 64 }, () => aJob({ topic: 'busy', delayMs: 60_000 }));
    await store.pushMany(jobs, Date.UTC(2026, 0, 1));
    const stats = await store.stats();
    expect(stats.find((s) => s.topic === 'busy')!.counts.delayed).toBe(64);
    const used = new Set(jobs.map((j) => (store as unknown as { part(id: string): number }).part(j.id)));
    expect(used.size).toBeGreaterThan(4);
    await store.close();
  });

  it('promotes the earliest jobs even when one partition holds far more than its share', async () => {
    // promoteDue first asks each of the 8 partitions for its share of the limit (11 of 16); here one
    // partition holds the 30 earliest, so the shares alone would pick 11 of them and 5 later jobs.
    const store = make();
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const part = (id: string): number => (store as unknown as { part(id: string): number }).part(id);
    const crowded: NewJob[] = [];
    const others: NewJob[] = [];
    for (let i = 0; crowded.length < 30 || others.length < 5; i++) {
      const id = `skew-${i}`;
      if (part(id) === 0 && crowded.length < 30)
        crowded.push(aJob({ id, topic: 'skew', runAt: now + 1 + crowded.length }));
      else if (part(id) !== 0 && others.length < 5)
        others.push(aJob({ id, topic: 'skew', runAt: now + 100 + others.length }));
    }
    await store.pushMany([...crowded, ...others], now);
    const promoted = await store.promoteDue(now + 1000, 16);
    expect(promoted.count).toBe(16);
    const states = await Promise.all([...crowded, ...others].map(async (j) => (await store.get(j.id))!.state));
    expect(states.slice(0, 16).every((s) => s === 'ready')).toBe(true);
    expect(states.slice(16).every((s) => s === 'delayed')).toBe(true);
    // The rest follow, earliest first: the other 14 crowded ones, then 2 of the others.
    expect((await store.promoteDue(now + 1000, 16)).count).toBe(16);
    expect((await store.get(crowded[29]!.id))!.state).toBe('ready');
    await store.close();
  });

  it('keeps every time of a job through its transitions, with and without the optional head fields', async () => {
    // A plain job's reserved and finished heads take lua/record.lua's one-pack paths; a ttl or an error the
    // general ones. Times all differ, so a field read or written in the wrong place shows. Every due job
    // is promoted (none left to consumers), so readyAt is the promote's time.
    const store = make(1, false);
    await store.open();
    try {
      const t = Date.UTC(2026, 0, 1);
      const plain = aJob({ topic: 'times', delayMs: 1000, now: t, priority: -3, ttrMs: 7000 });
      const withTtl = aJob({ topic: 'times', delayMs: 1000, now: t, priority: -3, ttrMs: 7000, ttlMs: 60_000 });
      await store.pushMany([plain, withTtl], t);
      expect((await store.promoteDue(t + 1100, 10)).count).toBe(2);
      const got = (await store.reserve(['times'], 2, t + 1500)).reservations;
      expect(got.map((r) => r.job.id).sort()).toEqual([plain.id, withTtl.id].sort());
      for (const r of got) {
        expect(r.job).toMatchObject({
          state: 'reserved',
          readyAt: t + 1100,
          reservedAt: t + 1500,
          deadlineAt: t + 8500,
          attempts: 1,
        });
        const touched = await store.touch(r.job.id, r.token, t + 1600);
        expect(touched.ok && touched.value).toMatchObject({
          readyAt: t + 1100,
          reservedAt: t + 1500,
          deadlineAt: t + 8600,
        });
        const finished = await store.finish(r.job.id, r.token, t + 1700);
        const expected = {
          state: 'finished',
          priority: -3,
          ttrMs: 7000,
          runAt: t + 1000,
          createdAt: t,
          attempts: 1,
          readyAt: t + 1100,
          reservedAt: t + 1500,
          finishedAt: t + 1700,
          deadlineAt: null,
          lastError: null,
          ttlMs: r.job.id === withTtl.id ? 60_000 : null,
        };
        expect(finished.ok && finished.value).toMatchObject(expected);
        expect(await store.get(r.job.id)).toMatchObject(expected);
        expect((await store.history(r.job.id)).map((h) => [h.event, h.at - t])).toEqual([
          ['push', 0],
          ['promote', 1100],
          ['reserve', 1500],
          ['finish', 1700], // a touch extends the deadline without a history entry
        ]);
      }
      // A retried job (an error in its head) reserved again: the general path.
      const failing = aJob({ topic: 'times2', delayMs: 0, now: t, ttrMs: 7000 });
      await store.pushMany([failing], t);
      const [first] = (await store.reserve(['times2'], 1, t + 10)).reservations;
      await store.retry(failing.id, first!.token, t + 15, { runAt: t + 20, error: 'boom' });
      await store.promoteDue(t + 30, 10);
      const [second] = (await store.reserve(['times2'], 1, t + 40)).reservations;
      expect(second!.job).toMatchObject({
        attempts: 2,
        readyAt: t + 30,
        reservedAt: t + 40,
        lastError: 'boom',
        deadlineAt: t + 7040,
      });
      const done = await store.finish(failing.id, second!.token, t + 50);
      expect(done.ok && done.value).toMatchObject({
        state: 'finished',
        readyAt: t + 30,
        reservedAt: t + 40,
        finishedAt: t + 50,
        lastError: 'boom',
      });
    } finally {
      await store.close();
    }
  });

  it('keeps every character of history reasons and errors', async () => {
    const store = make(1);
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const job = aJob({ topic: 'reasons', now });
    await store.pushMany([job], now);
    const [r] = (await store.reserve(['reasons'], 1, now)).reservations;
    const error = 'HTTP 503: upstream; retry 100% later — ünïcode ✓ %3A:;%';
    await store.retry(job.id, r!.token, now + 1, { runAt: now + 10, error });
    await store.cancel(job.id, now + 2, { reason: 'user: changed; mind %25' });
    const history = await store.history(job.id);
    expect(history.map((h) => [h.event, h.state, h.reason, h.at - now])).toEqual([
      ['push', 'ready', null, 0],
      ['reserve', 'reserved', null, 0],
      ['retry', 'delayed', error, 1],
      ['cancel', 'cancelled', 'user: changed; mind %25', 2],
    ]);
    expect((await store.get(job.id))!.lastError).toBe(error);
    await store.close();
  });

  it('never stamps a transition before the times the job already holds (reserve, finish, retry, cancel)', async () => {
    // Two processes on one Redis: the reserver's clock lags the promoter's by 7 ms (a restart's first
    // clock sync on a loaded host). The chaos kill -9 test once saw a delivery 6 ms "before" its runAt.
    const store = make(1);
    await store.open();
    const readyAt = Date.UTC(2026, 0, 1);
    const job = aJob({ topic: 'lagging', now: readyAt });
    await store.pushMany([job], readyAt);
    const [r] = (await store.reserve(['lagging'], 1, readyAt - 7)).reservations;
    expect(r!.job.reservedAt).toBe(readyAt);
    expect(r!.job.deadlineAt).toBe(readyAt + job.ttrMs);
    const done = await store.finish(job.id, r!.token, readyAt - 9);
    expect(done.ok && done.value.finishedAt).toBe(readyAt);
    const history = await store.history(job.id);
    expect(history.map((h) => [h.event, h.at - readyAt])).toEqual([
      ['push', 0],
      ['reserve', 0],
      ['finish', 0],
    ]);

    // Every transition, not only reserve and finish: a retry and a cancel from lagging clocks.
    const other = aJob({ topic: 'lagging', now: readyAt });
    await store.pushMany([other], readyAt);
    const [r2] = (await store.reserve(['lagging'], 1, readyAt + 3)).reservations;
    await store.retry(other.id, r2!.token, readyAt - 5, { runAt: readyAt + 60_000, error: 'boom' });
    const cancelled = await store.cancel(other.id, readyAt - 8);
    expect(cancelled.ok && cancelled.value.job.finishedAt).toBe(readyAt + 3);
    expect((await store.history(other.id)).map((h) => [h.event, h.at - readyAt])).toEqual([
      ['push', 0],
      ['reserve', 3],
      ['retry', 3],
      ['cancel', 3],
    ]);
    await store.close();
  });

  it('records its partition count with the data and refuses a store opened on it with another', async () => {
    const first = make(4);
    await first.open();
    const now = Date.now();
    const job = aJob({ topic: 'counted', now });
    await first.pushMany([job], now);
    await first.close();
    const store = (partitions: number | 'auto') =>
      new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: first.prefix, nodeId: 'n2', partitions });
    await expect(store(2).open()).rejects.toMatchObject({
      code: 'E_CONFIG',
      field: 'redis.partitions',
      message: expect.stringContaining('written in 4 partitions'),
    });
    const automatic = store('auto');
    await automatic.open();
    expect(automatic.partitions).toBe(4);
    expect((await automatic.get(job.id))?.topic).toBe('counted');
    await automatic.close();
    // New data on one server: one partition.
    const fresh = new RedisStore({
      url: 'redis://127.0.0.1:6379',
      prefix: prefixes.next(),
      nodeId: 'n',
      partitions: 'auto',
    });
    await fresh.open();
    expect(fresh.partitions).toBe(1);
    await fresh.close();
  });

  it('refuses to open a prefix whose jobs are in another record layout', async () => {
    const { Redis } = await import('ioredis');
    const admin = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true });
    await admin.connect();
    try {
      const fresh = make(1);
      await fresh.open();
      const keys = partitionKeys(fresh.prefix, 0);
      expect(await admin.hget(keys.counts, '#layout')).toBe(String(RECORD_LAYOUT));
      // A FLUSHALL under a running store: its next push marks the partition again.
      await admin.del(keys.counts);
      await fresh.pushMany([aJob({ topic: 'layout' })], Date.UTC(2026, 0, 1));
      expect(await admin.hget(keys.counts, '#layout')).toBe(String(RECORD_LAYOUT));
      expect((await fresh.stats()).map((s) => s.topic)).toEqual(['layout']);
      await fresh.close();

      // Jobs written before layouts had a number: jobs, and no mark.
      await admin.hdel(keys.counts, '#layout');
      const again = new RedisStore({
        url: 'redis://127.0.0.1:6379',
        prefix: fresh.prefix,
        nodeId: 'n2',
        partitions: 1,
      });
      await expect(again.open()).rejects.toMatchObject({
        code: 'E_CONFIG',
        field: 'redis.prefix',
        details: { layout: 1, expected: RECORD_LAYOUT },
      });
      // Another layout's mark; once its jobs and mark are gone, the prefix opens again.
      await admin.hset(keys.counts, '#layout', '99');
      await expect(again.open()).rejects.toMatchObject({ code: 'E_CONFIG', details: { layout: 99 } });
      await admin.del(keys.counts, keys.jobs);
      await again.open();
      expect(await admin.hget(keys.counts, '#layout')).toBe(String(RECORD_LAYOUT));
      await again.close();
    } finally {
      admin.disconnect();
    }
  });

  it('reserves a job once when a topic is named twice', async () => {
    const store = make();
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    await store.pushMany([aJob({ topic: 'twice', now }), aJob({ topic: 'twice', now })], now);
    const got = (await store.reserve(['twice', 'twice'], 10, now)).reservations;
    expect(got).toHaveLength(2);
    expect(new Set(got.map((r) => r.job.id)).size).toBe(2);
    expect(got.every((r) => r.job.attempts === 1)).toBe(true);
    await store.close();
  });

  it('groups concurrent pushes and answers each caller with its own jobs', async () => {
    const store = make();
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const jobs = Array.from({ length: 500 }, (_, i) => aJob({ topic: 'grouped', delayMs: i % 2 ? 1000 : 0 }));
    const results = await Promise.all(jobs.map((j) => store.pushMany([j], now)));
    expect(results.map(([r]) => r!.job.id)).toEqual(jobs.map((j) => j.id));
    expect(results.every(([r]) => r!.created)).toBe(true);
    const again = await Promise.all(jobs.slice(0, 10).map((j) => store.pushMany([j], now)));
    expect(again.every(([r]) => !r!.created)).toBe(true);
    await store.close();
  });
});

describe('RedisStore between processes', () => {
  it('wakes a peer: onReady for jobs made ready, onDue for an earlier due time', async () => {
    const prefix = prefixes.next();
    const a = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'a' });
    const b = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'b' });
    await a.open();
    await b.open();
    const readies: string[][] = [];
    const dues: number[] = [];
    b.watch({ onReady: (topics) => readies.push([...topics]), onDue: (at) => dues.push(at) });
    const now = Date.now();
    // The subscription is asynchronous: push until the peer hears it (a wake-up is a hint, not a queue).
    await waitFor('the peer to hear a ready push', async () => {
      await a.pushMany([aJob({ topic: 'wake', now })], now);
      await new Promise((r) => setTimeout(r, 20));
      return readies.some((t) => t.includes('wake'));
    });
    await a.pushMany([aJob({ topic: 'wake', now, delayMs: 60_000 })], now);
    await a.pushMany([aJob({ topic: 'wake', now, delayMs: 30_000 })], now);
    await waitFor('the peer to hear the earlier due time', async () => dues.includes(now + 30_000));
    expect(dues).toContain(now + 60_000);
    await b.pushMany([aJob({ topic: 'wake', now, delayMs: 90_000 })], now);
    await new Promise((r) => setTimeout(r, 50)); // lets time pass: shows no wake-up arrives
    expect(dues).not.toContain(now + 90_000); // not earlier than the head: no wake-up, and no echo to itself
    await a.close();
    await b.close();
  });

  it('stamps time from the Redis server clock', async () => {
    const store = make();
    await store.open();
    const { Redis } = await import('ioredis');
    const redis = new Redis({ port: 6379, host: '127.0.0.1' });
    const [s, us] = await redis.time();
    const serverMs = Number(s) * 1000 + Number(us) / 1000;
    expect(Math.abs(store.clock.now() - serverMs)).toBeLessThan(250);
    await redis.quit();
    await store.close();
  });
});
