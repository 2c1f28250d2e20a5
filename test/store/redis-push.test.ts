import { Redis } from 'ioredis';
import { Unpackr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordToJob } from '../../src/store/redis/job-record.js';
import { decodeRecord, packNewRecord } from '../../src/store/redis/record-codec.js';
import { JOBS_PER_BUCKET } from '../../src/store/redis/push-args.js';
import { LUA_PRELUDE } from '../../src/store/redis/scripts.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('push');
let admin: Redis;
beforeAll(() => {
  admin = new Redis({ port: 6379, host: '127.0.0.1' });
});
afterAll(async () => {
  admin.disconnect();
  await prefixes.sweep();
});

// cmsgpack writes integers beyond 32 bits as int64; read them as numbers, as the scripts' replies are.
const unpack = (b: Buffer): unknown => new Unpackr({ int64AsType: 'number' }).unpack(b);
const UNICODE_BODY = JSON.stringify({ s: 'héllo ☃ 𝄞 日本語', e: '' });
const FAR_AT = 4_102_444_800_123; // 2100-01-01, beyond 32 bits

describe('a record packed in Node and read by the Lua scripts (struct head, msgpack body)', () => {
  const cases = [
    aJob({ tag: null, bizKey: null, ttlMs: null, body: UNICODE_BODY, runAt: FAR_AT }),
    aJob({ tag: 'tag ☃', bizKey: 'order-42', ttlMs: 3_600_000, priority: -7, runAt: 1_000 }),
  ];

  it("round-trips through the scripts' readHead + writeHead, nulls as false, big timestamps exact", async () => {
    for (const job of cases) {
      const now = FAR_AT - 60_000;
      const packed = packNewRecord(job, now, 3);
      expect(packed.readUIntBE(21, 3)).toBe(0); // the bucket placeholder push.lua replaces
      // The head as the scripts read it, the record as a transition rewrites it (head, then the rest as
      // is), and the body as cmsgpack reads it.
      const script = `${LUA_PRELUDE}
local h = readHead(ARGV[1])
return { writeHead(h) .. string.sub(ARGV[1], h.topicAt), cmsgpack.pack({ h.topic, h.state, h.runAt, h.priority, h.ttr,
  h.ttl, h.attempts, h.lastError, h.token, h.deadline, h.createdAt, h.readyAt, h.reservedAt, h.finishedAt, h.bucket }),
  cmsgpack.pack(readBody(ARGV[1], h)) }`;
      const [rewritten, head, body] = (await admin.callBuffer('EVAL', script, '0', packed)) as Buffer[];
      expect(rewritten!.equals(packed)).toBe(true);
      const ready = job.runAt <= now;
      expect(unpack(head!)).toEqual([
        job.topic,
        ready ? 2 : 1,
        job.runAt,
        job.priority,
        job.ttrMs,
        job.ttlMs ?? false,
        0,
        false,
        false,
        false,
        now,
        ready ? now : false,
        false,
        false,
        0,
      ]);
      expect(unpack(body!)).toEqual([job.tag ?? false, job.bizKey ?? false, job.body, '']);
      // As Node decodes it (the scripts return records as stored), it is the job that was pushed.
      const record = decodeRecord(packed, true);
      expect(recordToJob(job.id, record)).toMatchObject({
        topic: job.topic,
        tag: job.tag,
        bizKey: job.bizKey,
        body: job.body,
        runAt: job.runAt,
        ttlMs: job.ttlMs,
        priority: job.priority,
        createdAt: now,
      });
      expect(record.history).toEqual([
        { at: now, event: 'push', state: ready ? 'ready' : 'delayed', attempt: 0, node: 3, reason: null },
      ]);
    }
  });

  it('reads back unchanged through the store after a script rewrote the record (cancel)', async () => {
    const store = new RedisStore({
      url: 'redis://127.0.0.1:6379',
      prefix: prefixes.next(),
      nodeId: 'n',
      partitions: 2,
    });
    await store.open();
    try {
      const job = aJob({ body: UNICODE_BODY, runAt: FAR_AT, tag: null, bizKey: 'bk' });
      const now = FAR_AT - 1000;
      await store.pushMany([job], now);
      expect(await store.get(job.id)).toMatchObject({
        state: 'delayed',
        body: UNICODE_BODY,
        tag: null,
        bizKey: 'bk',
        runAt: FAR_AT,
      });
      expect((await store.cancel(job.id, now + 1)).ok).toBe(true);
      expect(await store.get(job.id)).toMatchObject({
        state: 'cancelled',
        body: UNICODE_BODY,
        tag: null,
        runAt: FAR_AT,
        lastError: null,
      });
    } finally {
      await store.close();
    }
  });
});

describe('delayed buckets follow the backlog', () => {
  it('puts runs of consecutive jobs of one call in one bucket, so a call writes a few sets with many members', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'n', partitions: 1 });
    await store.open();
    try {
      const now = Date.UTC(2026, 0, 1);
      await store.pushMany(
        Array.from({ length: 64 }, (_, k) => aJob({ topic: 'runs', now, delayMs: 60_000 + k })),
        now,
      ); // one chunk
      const keys = await admin.keys(`{${prefix}:0}:delayed:runs#*`);
      expect(keys).toHaveLength(64 / JOBS_PER_BUCKET);
      for (const key of keys) expect(await admin.zcard(key)).toBe(JOBS_PER_BUCKET);
    } finally {
      await store.close();
    }
  });

  it(
    'keeps every delayed set of one big topic listpack-encoded, and scripts still find each job',
    { timeout: 60_000 },
    async () => {
      const prefix = prefixes.next();
      const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'n', partitions: 1 });
      await store.open();
      try {
        const now = Date.UTC(2026, 0, 1);
        const ids: string[] = [];
        for (let i = 0; i < 30_000; i += 1000) {
          const jobs = Array.from({ length: 1000 }, (_, k) =>
            aJob({ topic: 'big', now, delayMs: 60_000 + (((i + k) * 7919) % 3_600_000) }),
          );
          ids.push(...jobs.map((j) => j.id));
          await store.pushMany(jobs, now);
        }
        const keys = await admin.keys(`{${prefix}:0}:delayed:big#*`);
        const sizes = await Promise.all(keys.map((k) => admin.zcard(k)));
        const encodings = new Set(await Promise.all(keys.map((k) => admin.object('ENCODING', k))));
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(30_000);
        expect(encodings).toEqual(new Set(['listpack']));
        expect(Math.max(...sizes)).toBeLessThanOrEqual(128);
        expect(await admin.zcard(`{${prefix}:0}:dueidx`)).toBe(keys.length);
        // cancel and reschedule read the bucket from the record
        for (const id of ids.slice(0, 200)) expect((await store.cancel(id, now)).ok).toBe(true);
        for (const id of ids.slice(200, 400)) expect((await store.reschedule(id, now + 10, now)).ok).toBe(true);
        const after = await Promise.all(keys.map((k) => admin.zcard(k)));
        expect(after.reduce((a, b) => a + b, 0)).toBe(29_800);
        expect((await store.stats())[0]!.counts.delayed).toBe(29_800);
      } finally {
        await store.close();
      }
    },
  );
});
