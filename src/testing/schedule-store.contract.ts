import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScheduleDefinition } from '../core/schedule.js';
import type { ScheduleStore } from '../store/schedule-store.js';

const T0 = Date.UTC(2026, 5, 1);

/**
 * What every ScheduleStore must do (store/schedule-store.ts): operator writes bump the revision, a guard
 * keeps a write off a record it refuses, cursor moves are compare-and-set, and a restore never overwrites.
 * `makeStore` gives a store that is not open yet; each test opens and closes its own.
 */
export function scheduleStoreContract(name: string, makeStore: () => ScheduleStore | Promise<ScheduleStore>): void {
  describe(`ScheduleStore contract: ${name}`, () => {
    let store: ScheduleStore;
    // A name no other test uses, so stores over shared data cannot see each other's schedules.
    let schedule: string;
    const definition = (everyMs = 1000, topic = 't'): ScheduleDefinition => ({
      name: schedule,
      topic,
      job: {},
      cron: null,
      everyMs,
      timeZone: 'UTC',
      startAt: null,
      endAt: null,
      maxFires: null,
      missed: 'once',
      catchUpMax: 100,
    });

    beforeEach(async () => {
      store = await makeStore();
      await store.open();
      schedule = `s-${Math.random().toString(36).slice(2, 10)}`;
    });
    afterEach(async () => {
      await store.close();
    });

    it('a guard keeps a write off a schedule it refuses: put is a name conflict, pause and delete find none', async () => {
      await store.put(definition(), T0);
      const ownTopicOnly = (r: { topic: string }) => r.topic === 'mine';
      await expect(store.put(definition(5000, 'mine'), T0 + 1, ownTopicOnly)).rejects.toMatchObject({
        code: 'E_CONFLICT',
        field: 'name',
      });
      expect(await store.setPaused(schedule, true, T0 + 2, ownTopicOnly)).toBeNull();
      expect(await store.delete(schedule, ownTopicOnly)).toBe(false);
      expect(await store.get(schedule)).toMatchObject({ topic: 't', everyMs: 1000, paused: false, revision: 1 });
      // A guard that accepts the record lets each write through; a name that is free is created whatever the guard.
      const anyTopic = () => true;
      expect(await store.setPaused(schedule, true, T0 + 3, anyTopic)).toMatchObject({ paused: true });
      expect(await store.delete(schedule, anyTopic)).toBe(true);
      expect((await store.put(definition(1000, 'mine'), T0 + 4, ownTopicOnly)).created).toBe(true);
    });

    it('creates, replaces (keeping progress), pauses, resumes and deletes', async () => {
      const { record, created } = await store.put(definition(), T0);
      expect(created).toBe(true);
      expect(record).toMatchObject({ revision: 1, cursorAt: T0, fired: 0, anchorAt: T0, paused: false });
      const move = {
        name: schedule,
        revision: 1,
        fromCursorAt: T0,
        toCursorAt: T0 + 2000,
        fired: 2,
        lastFiredAt: T0 + 2000,
      };
      expect(await store.moveCursors([move], T0 + 10)).toEqual([true]);
      expect(await store.put(definition(5000), T0 + 100)).toMatchObject({
        created: false,
        record: { revision: 2, everyMs: 5000, cursorAt: T0 + 2000, fired: 2, createdAt: T0 },
      });
      expect(await store.setPaused(schedule, true, T0 + 200)).toMatchObject({ paused: true, revision: 3 });
      expect(await store.setPaused(schedule, false, T0 + 9000)).toMatchObject({
        paused: false,
        revision: 4,
        cursorAt: T0 + 9000,
      });
      expect((await store.list()).filter((r) => r.name === schedule)).toHaveLength(1);
      expect(await store.delete(schedule)).toBe(true);
      expect(await store.get(schedule)).toBeNull();
      expect((await store.list()).some((r) => r.name === schedule)).toBe(false);
      expect(await store.setPaused(schedule, true, T0)).toBeNull();
    });

    it('lists schedules sorted by name', async () => {
      const names = [`${schedule}-b`, `${schedule}-a`, `${schedule}-c`];
      for (const n of names) await store.put({ ...definition(), name: n }, T0);
      const listed = (await store.list()).map((r) => r.name).filter((n) => names.includes(n));
      expect(listed).toEqual([...names].sort());
    });

    it('moves a cursor once: a second move from the same state, or one against an older revision, is refused', async () => {
      await store.put(definition(), T0);
      const move = {
        name: schedule,
        revision: 1,
        fromCursorAt: T0,
        toCursorAt: T0 + 1000,
        fired: 1,
        lastFiredAt: T0 + 1000,
      };
      expect(await store.moveCursors([move, move], T0)).toEqual([true, false]);
      expect(await store.moveCursors([move], T0)).toEqual([false]);
      await store.put(definition(2000), T0 + 1); // revision 2
      expect(await store.moveCursors([{ ...move, fromCursorAt: T0 + 1000, toCursorAt: T0 + 2000 }], T0)).toEqual([
        false,
      ]);
      expect(await store.get(schedule)).toMatchObject({
        revision: 2,
        cursorAt: T0 + 1000,
        fired: 1,
        lastFiredAt: T0 + 1000,
      });
      expect(await store.moveCursors([{ ...move, name: `${schedule}-gone` }], T0)).toEqual([false]);
    });

    it('restore puts a record back as it was, unless a schedule of that name exists', async () => {
      const { record } = await store.put(definition(), T0);
      await store.delete(schedule);
      const kept = { ...record, revision: 7, cursorAt: T0 + 5000, fired: 5, lastFiredAt: T0 + 5000 };
      expect(await store.restore(kept)).toBe(true);
      expect(await store.get(schedule)).toEqual(kept);
      expect(await store.restore({ ...kept, revision: 9 })).toBe(false);
      expect(await store.get(schedule)).toMatchObject({ revision: 7 });
    });
  });
}
