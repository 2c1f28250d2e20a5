import { afterAll, describe, expect, it } from 'vitest';
import { RedisScheduleStore } from '../../src/schedule/redis-schedule-store.js';
import { normalizeSchedule } from '../../src/schedule/schedule-input.js';
import type { ScheduleStore } from '../../src/schedule/schedule-store.js';
import { SqliteScheduleStore } from '../../src/schedule/sqlite-schedule-store.js';
import { createRedisClient, parseRedisUrl } from '../../src/store/redis/connection.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('schedstore');
afterAll(() => prefixes.sweep());

const T0 = Date.parse('2026-06-01T00:00:00Z');
const definition = (everyMs = 1000) => normalizeSchedule('s', { topic: 't', everyMs }, T0);

const stores: [string, () => ScheduleStore][] = [
  ['sqlite', () => new SqliteScheduleStore({ path: ':memory:' })],
  [
    'redis',
    () =>
      new RedisScheduleStore({
        connect: () =>
          createRedisClient(parseRedisUrl('redis://127.0.0.1:6379').connection, {
            commandTimeoutMs: 2000,
            connectTimeoutMs: 2000,
          }),
        prefix: prefixes.next(),
      }),
  ],
];

describe.each(stores)('%s schedule store', (_name, make) => {
  it('creates, replaces (keeping progress), pauses, resumes and deletes', async () => {
    const store = make();
    await store.open();
    const { record, created } = await store.put(definition(), T0);
    expect(created).toBe(true);
    expect(record).toMatchObject({ revision: 1, cursorAt: T0, fired: 0, anchorAt: T0, paused: false });
    expect(
      await store.moveCursors(
        [{ name: 's', revision: 1, fromCursorAt: T0, toCursorAt: T0 + 2000, fired: 2, lastFiredAt: T0 + 2000 }],
        T0 + 10,
      ),
    ).toEqual([true]);
    const replaced = await store.put(definition(5000), T0 + 100);
    expect(replaced).toMatchObject({
      created: false,
      record: { revision: 2, everyMs: 5000, cursorAt: T0 + 2000, fired: 2, createdAt: T0 },
    });
    expect(await store.setPaused('s', true, T0 + 200)).toMatchObject({ paused: true, revision: 3 });
    expect(await store.setPaused('s', false, T0 + 9000)).toMatchObject({
      paused: false,
      revision: 4,
      cursorAt: T0 + 9000,
    });
    expect((await store.list()).map((r) => r.name)).toEqual(['s']);
    expect(await store.delete('s')).toBe(true);
    expect(await store.get('s')).toBeNull();
    expect(await store.setPaused('s', true, T0)).toBeNull();
    await store.close();
  });

  it('moves a cursor once: a second move from the same state, or one against an older revision, is refused', async () => {
    const store = make();
    await store.open();
    await store.put(definition(), T0);
    const move = { name: 's', revision: 1, fromCursorAt: T0, toCursorAt: T0 + 1000, fired: 1, lastFiredAt: T0 + 1000 };
    expect(await store.moveCursors([move, move], T0)).toEqual([true, false]);
    expect(await store.moveCursors([move], T0)).toEqual([false]);
    await store.put(definition(2000), T0 + 1); // revision 2
    expect(await store.moveCursors([{ ...move, fromCursorAt: T0 + 1000, toCursorAt: T0 + 2000 }], T0)).toEqual([false]);
    expect(await store.get('s')).toMatchObject({ revision: 2, cursorAt: T0 + 1000, fired: 1, lastFiredAt: T0 + 1000 });
    expect(await store.moveCursors([{ ...move, name: 'gone' }], T0)).toEqual([false]);
    await store.close();
  });
});
