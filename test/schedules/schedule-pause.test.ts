/**
 * A pause means no tick due while the schedule was paused is ever pushed, and a tick pushed late carries its
 * tick as runAt (docs/schedules.md), on each schedule store: SQLite, Redis, and Redis journaled to PostgreSQL.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JournaledScheduleStore } from '../../src/journal/journaled-schedule-store.js';
import { RedisScheduleStore } from '../../src/store/redis/redis-schedule-store.js';
import type { ScheduleStore } from '../../src/store/schedule-store.js';
import { SqliteScheduleStore } from '../../src/store/sqlite/sqlite-schedule-store.js';
import { createRedisClient, parseRedisUrl } from '../../src/store/redis/connection.js';
import { postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { ScheduleHarness } from './schedule-harness.js';

const prefixes = prefixPool('schedpause');
const databases: JournalDatabase[] = [];
afterAll(async () => {
  await prefixes.sweep();
  for (const db of databases) await db.drop();
});

const redisStore = (): RedisScheduleStore =>
  new RedisScheduleStore({
    connect: () =>
      createRedisClient(parseRedisUrl('redis://127.0.0.1:6379').connection, {
        commandTimeoutMs: 2000,
        connectTimeoutMs: 2000,
      }),
    prefix: prefixes.next(),
  });

const shapes: [string, () => Promise<{ store: ScheduleStore; closeAlso?: () => Promise<void> }>][] = [
  ['sqlite', async () => ({ store: new SqliteScheduleStore({ path: ':memory:' }) })],
  ['redis', async () => ({ store: redisStore() })],
  [
    'redis + postgres journal',
    async () => {
      const db = await postgresJournalDatabase();
      databases.push(db);
      const journal = db.journal();
      await journal.open();
      return { store: new JournaledScheduleStore(redisStore(), journal), closeAlso: () => journal.close() };
    },
  ],
];

const T0 = Date.parse('2026-03-01T00:00:00Z');
const SECOND = 1000;

describe.each(shapes)('schedule pause and late ticks on %s', (_name, make) => {
  let harness: ScheduleHarness | undefined;
  let closeAlso: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await harness?.close();
    await closeAlso?.();
    harness = undefined;
    closeAlso = undefined;
  });
  const open = async (): Promise<ScheduleHarness> => {
    const made = await make();
    closeAlso = made.closeAlso;
    harness = await new ScheduleHarness(T0, {}, made.store).open();
    return harness;
  };
  const ticksOf = async (h: ScheduleHarness): Promise<{ tick: number; runAt: number }[]> =>
    (await h.jobs('beat')).map((j) => ({ tick: Number(j.id.split('~')[1]) - T0, runAt: j.runAt - T0 }));

  it('a resume that reaches the store late pushes no tick that came due while the schedule was paused', async () => {
    const h = await open();
    await h.schedules.put('s', { topic: 'beat', everyMs: SECOND });
    await h.startRunner();
    await h.runUntil(T0 + 3.5 * SECOND); // ticks up to 5 s pushed ahead (lead 2 s)
    await h.schedules.setPaused('s', true);
    await h.runUntil(T0 + 9.5 * SECOND);
    // The resume read its clock at 7.2 s but was written at 9.5 s (a slow store, a busy instance): until then
    // the store held the schedule paused, so the ticks of 8 s and 9 s came due while it was paused.
    await h.store.setPaused('s', false, T0 + 7.2 * SECOND);
    h.runner!.wakeNow();
    await h.runUntil(T0 + 12 * SECOND);
    const ticks = await ticksOf(h);
    expect(ticks.map((t) => t.tick)).toEqual([1, 2, 3, 4, 5, 10, 11, 12, 13, 14].map((s) => s * SECOND));
    expect(ticks.every((t) => t.runAt === t.tick)).toBe(true);
  });

  it('a tick pushed late (a stalled round) is due at its tick, not when it was pushed', async () => {
    const h = await open();
    await h.schedules.put('s', { topic: 'beat', everyMs: SECOND });
    await h.startRunner();
    await h.runUntil(T0 + 2.5 * SECOND); // ticks up to 4 s pushed
    await h.stopRunner();
    h.clock.set(T0 + 5.8 * SECOND); // 5 s is late by 0.8 s, within the grace: pushed late, not missed
    await h.startRunner();
    await h.runUntil(T0 + 6 * SECOND);
    const ticks = await ticksOf(h);
    expect(ticks.map((t) => t.tick).slice(0, 6)).toEqual([1, 2, 3, 4, 5, 6].map((s) => s * SECOND));
    expect(ticks.filter((t) => t.runAt !== t.tick)).toEqual([]);
    expect((await h.service.get(`s~${T0 + 5 * SECOND}`)).state).toBe('ready');
  });
});
