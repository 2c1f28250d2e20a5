import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DelayqError } from '../../src/core/errors.js';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';
import { swappableStore } from '../helpers/swappable-store.js';

// A crash *between* the decorator's two writes cannot be caused for real, so the inner store is wrapped
// to fail one call (STYLE.md's TestBroker-style fault); everything else is real.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

function failing(inner: Store): Store & { failNext(method: 'pushMany' | 'cancel'): void } {
  const armed = new Set<string>();
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'failNext') return (m: string) => armed.add(m);
      const value = (target as unknown as Record<string | symbol, unknown>)[prop];
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (typeof prop === 'string' && armed.delete(prop)) {
          return Promise.reject(new DelayqError('E_STORE_UNAVAILABLE', `injected: crash before the inner ${prop}`));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Store & { failNext(method: 'pushMany' | 'cancel'): void };
}

for (const db of databases) {
  describe(`crash windows of the write path on ${db.dialect}`, () => {
    const open: JournaledStore[] = [];
    afterEach(async () => {
      while (open.length) await open.pop()!.close();
      await db.truncate();
    });
    const setup = async () => {
      const swappable = swappableStore(new SqliteStore({ path: ':memory:', nodeId: 'c' }));
      const inner = failing(swappable);
      const store = new JournaledStore(inner, db.journal({ maxConnections: 3 }), {
        nodeId: 'c',
        clock: new FakeClock(),
        horizonMs: 60_000,
      });
      await store.open();
      open.push(store);
      return { store, inner, swappable };
    };

    it('push: journal written, inner push lost: the push fails, a retry repairs it, a restore delivers it', async () => {
      const { store, inner, swappable } = await setup();
      const now = Date.UTC(2026, 0, 1);
      const job = aJob({ topic: 'cw', now, delayMs: 1000 });
      inner.failNext('pushMany');
      await expect(store.pushMany([job], now)).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
      expect(await swappable.get(job.id)).toBeNull();
      const [again] = await store.pushMany([job], now + 1);
      expect(again).toMatchObject({ created: false, job: { id: job.id, state: 'delayed' } });
      expect(await swappable.get(job.id)).toMatchObject({ state: 'delayed' });
      // the same window, then the inner store is lost: the restore delivers the unacknowledged push
      const lost = aJob({ topic: 'cw', now, delayMs: 1000 });
      inner.failNext('pushMany');
      await expect(store.pushMany([lost], now)).rejects.toThrow();
      await swappable.swap(new SqliteStore({ path: ':memory:', nodeId: 'c' }));
      expect(await store.checkInner(now)).toBe('restored');
      expect(await swappable.get(lost.id)).toMatchObject({ state: 'delayed' });
    });

    it('cancel: journal says cancelled, inner cancel lost: no restore ever brings the job back', async () => {
      const { store, inner, swappable } = await setup();
      const now = Date.UTC(2026, 0, 1);
      const job = aJob({ topic: 'cw', now, delayMs: 1000 });
      await store.pushMany([job], now);
      inner.failNext('cancel');
      await expect(store.cancel(job.id, now)).rejects.toThrow();
      await swappable.swap(new SqliteStore({ path: ':memory:', nodeId: 'c' }));
      expect(await store.checkInner(now)).toBe('restored');
      expect(await swappable.get(job.id)).toBeNull();
      expect(await store.get(job.id)).toMatchObject({ state: 'cancelled' });
    });

    it("finish: inner finished, journal write lost: after a loss the job is its holder's again, never lost", async () => {
      const { store, swappable } = await setup();
      const now = Date.UTC(2026, 0, 1);
      const job = aJob({ topic: 'cw', now });
      await store.pushMany([job], now);
      const [r] = (await store.reserve(['cw'], 1, now)).reservations;
      // the journal goes away between the inner finish and the journal write
      await store.journal.close();
      await expect(store.finish(job.id, r!.token, now)).rejects.toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
      expect(await swappable.get(job.id)).toMatchObject({ state: 'finished' });
      await store.journal.open();
      await swappable.swap(new SqliteStore({ path: ':memory:', nodeId: 'c' }));
      expect(await store.checkInner(now + 5)).toBe('restored');
      // The journal kept the reservation: nobody else gets the job before its deadline, and after it the
      // reaper finds it lapsed under the holder's token (so it is delivered again, never lost).
      expect((await store.reserve(['cw'], 1, now + 5)).reservations).toEqual([]);
      expect(await store.listLapsed(r!.deadlineAt, 10)).toMatchObject([{ id: job.id, token: r!.token }]);
      expect((await store.finish(job.id, r!.token, now + 6)).ok).toBe(true);
      expect(await store.get(job.id)).toMatchObject({ state: 'finished' });
    });
  });
}
