// The two sides of the record layout (record-layout.ts) against each other: the real scripts on a real
// Redis move jobs through every state, and each record they write is read both by the TypeScript codec
// (decodeRecord) and by the Lua prelude's readHead; the two must agree field by field, and the history
// must name the events that happened. A state, event or flag that drifts on one side fails here.
import { Redis } from 'ioredis';
import { Unpackr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_EVENTS, JOB_STATES, type HistoryEvent, type JobState } from '../../src/core/job.js';
import { partitionKeys } from '../../src/store/redis/keys.js';
import { decodeRecord, type StoredRecord } from '../../src/store/redis/record-codec.js';
import { STATE_CODE } from '../../src/store/redis/record-layout.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { LUA_PRELUDE } from '../../src/store/redis/scripts.js';
import { aJob } from '../../src/testing/jobs.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('layout');
let admin: Redis;
beforeAll(() => {
  admin = new Redis({ port: 6379, host: '127.0.0.1' });
});
afterAll(async () => {
  admin.disconnect();
  await prefixes.sweep();
});

const unpack = (b: Buffer): unknown => new Unpackr({ int64AsType: 'number' }).unpack(b);

/** The record's head as the scripts read it (false = absent), in a fixed order. */
const READ_HEAD = `${LUA_PRELUDE}
local h = readHead(ARGV[1])
return cmsgpack.pack({ h.state, h.attempts, h.priority, h.ttr, h.createdAt, h.runAt, h.bucket, h.ttl, h.readyAt,
  h.reservedAt, h.finishedAt, h.lastError, h.deadline, h.token, h.topic, readBody(ARGV[1], h) })`;

/** The same fields as the TypeScript codec decodes them, in READ_HEAD's order. */
function asLuaReadsIt(r: StoredRecord): unknown[] {
  const f = <T>(v: T | null): T | false => v ?? false;
  return [
    STATE_CODE[r.state],
    r.attempts,
    r.priority,
    r.ttrMs,
    r.createdAt,
    r.runAt,
    r.bucket,
    f(r.ttlMs),
    f(r.readyAt),
    f(r.reservedAt),
    f(r.finishedAt),
    f(r.lastError),
    f(r.deadlineAt),
    f(r.token),
    r.topic,
    [f(r.tag), f(r.bizKey), r.body, r.retry],
  ];
}

describe('the record layout, written by the scripts and read by both codecs', () => {
  it('agrees on every state the scripts write, and the history names every event', async () => {
    const prefix = prefixes.next();
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId: 'layout-node', partitions: 1 });
    await store.open();
    const keys = partitionKeys(prefix, 0);
    const seenStates = new Set<JobState>();
    const seenEvents = new Set<HistoryEvent>();
    /** Reads the raw record, checks both codecs agree, and answers what they read. */
    const check = async (id: string, state: JobState): Promise<StoredRecord> => {
      const raw = await admin.hgetBuffer(keys.jobs, id);
      expect(raw, id).not.toBeNull();
      const record = decodeRecord(raw!, true);
      expect(record.state).toBe(state);
      const lua = unpack((await admin.callBuffer('EVAL', READ_HEAD, '0', raw!)) as Buffer);
      expect(lua).toEqual(asLuaReadsIt(record));
      seenStates.add(record.state);
      for (const e of record.history!) seenEvents.add(e.event);
      expect(record.history!.at(-1)!.state).toBe(state);
      return record;
    };
    const events = (r: StoredRecord) => r.history!.map((e) => e.event);
    try {
      const t = Date.UTC(2026, 0, 1);
      const later = aJob({ topic: 'layout', delayMs: 60_000, now: t, tag: 'a tag', bizKey: 'k-1' });
      const now = aJob({ topic: 'layout', now: t, priority: -2 });
      const ttl = aJob({ topic: 'ttl-only', now: t, ttlMs: 1000 });
      const moved = aJob({ topic: 'layout', delayMs: 500, now: t });
      await store.pushMany([later, now, ttl, moved], t);
      await check(later.id, 'delayed');
      await check(now.id, 'ready');
      // run now: delayed → ready under promote, with its reason (run-now.lua)
      const soon = aJob({ topic: 'layout', delayMs: 90_000, now: t, ttlMs: 5000 });
      await store.pushMany([soon], t);
      await store.runNow(soon.id, t + 1);
      const ran = await check(soon.id, 'ready');
      expect(ran).toMatchObject({ runAt: t + 1, readyAt: t + 1 });
      expect(ran.history!.map((e) => [e.event, e.reason])).toEqual([
        ['push', null],
        ['promote', 'run now'],
      ]);
      await store.cancel(soon.id, t + 1);

      // reserve, touch, finish
      const [held] = (await store.reserve(['layout'], 1, t + 1)).reservations;
      expect(held!.job.id).toBe(now.id);
      let r = await check(now.id, 'reserved');
      expect(r.token).toBe(held!.token);
      await store.touch(now.id, held!.token, t + 2, 9000);
      expect((await check(now.id, 'reserved')).deadlineAt).toBe(t + 9002);
      await store.finish(now.id, held!.token, t + 3);
      r = await check(now.id, 'finished');
      expect(events(r)).toEqual(['push', 'reserve', 'finish']);

      // reschedule, promote, reserve, retry with an error, promote, reserve, bury, redrive, reserve, release
      await store.reschedule(moved.id, t + 200, t + 4);
      await check(moved.id, 'delayed');
      expect((await store.promoteDue(t + 300, 10)).count).toBe(1);
      await check(moved.id, 'ready');
      let [m] = (await store.reserve(['layout'], 1, t + 301)).reservations;
      await store.retry(moved.id, m!.token, t + 302, { runAt: t + 400, error: 'boom ☃' });
      r = await check(moved.id, 'delayed');
      expect(r.lastError).toBe('boom ☃');
      await store.promoteDue(t + 400, 10);
      [m] = (await store.reserve(['layout'], 1, t + 401)).reservations;
      await store.bury(moved.id, m!.token, t + 402, { error: 'gave up' });
      await check(moved.id, 'dead');
      expect(await store.redrive({ ids: [moved.id] }, t + 403)).toBe(1);
      await check(moved.id, 'ready');
      [m] = (await store.reserve(['layout'], 1, t + 404)).reservations;
      await store.release(moved.id, m!.token, t + 405);
      r = await check(moved.id, 'ready');
      expect(events(r)).toEqual([
        'push',
        'reschedule',
        'promote',
        'reserve',
        'retry',
        'promote',
        'reserve',
        'bury',
        'redrive',
        'reserve',
        'release',
      ]);
      expect(r.history!.find((e) => e.event === 'bury')!.reason).toBe('gave up');

      // cancel a delayed job, expire a ready one past its ttl
      await store.cancel(later.id, t + 500, { reason: 'not needed' });
      r = await check(later.id, 'cancelled');
      expect([r.tag, r.bizKey]).toEqual(['a tag', 'k-1']);
      expect(await store.expireDue(t + 2000, 10)).toEqual([{ id: ttl.id, topic: ttl.topic }]);
      await check(ttl.id, 'expired');

      // A due job reserved straight from its delayed set: promote and reserve at one instant.
      const direct = aJob({ topic: 'direct', delayMs: 10, now: t });
      await store.pushMany([direct], t);
      const [d] = (await store.reserve(['direct'], 1, t + 20)).reservations;
      expect(d!.job.id).toBe(direct.id);
      expect(events(await check(direct.id, 'reserved'))).toEqual(['push', 'promote', 'reserve']);

      // A push's onExists rule: replace (a new body section, written by cmsgpack) and extend.
      const upserted = aJob({ topic: 'upsert', delayMs: 1000, tag: 'kept', now: t });
      await store.pushMany([upserted], t);
      const replace = { ...upserted, body: '"replaced"', priority: -3, onExists: { mode: 'replace' as const } };
      await store.pushMany([replace], t + 1);
      const extend = { ...upserted, runAt: t + 5000, onExists: { mode: 'extend' as const, maxWaitMs: 4000 } };
      await store.pushMany([extend], t + 2);
      const u = await check(upserted.id, 'delayed');
      expect(events(u)).toEqual(['push', 'replace', 'extend']);
      expect(u).toMatchObject({ body: '"replaced"', tag: 'kept', priority: -3, runAt: t + 4000 });
      expect(u.history!.at(-1)!.reason).toBe(`runAt=${t + 4000}`);

      expect([...seenStates].sort()).toEqual([...JOB_STATES].sort());
      // Every event but restore, which the journal writes through push.
      expect([...seenEvents].sort()).toEqual(HISTORY_EVENTS.filter((e) => e !== 'restore').sort());
    } finally {
      await store.close();
    }
  });
});
