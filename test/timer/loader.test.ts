import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { JournalLoader, type LoaderRound } from '../../src/timer/loader.js';
import { DelayqService } from '../../src/service/service.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';
import { swappableStore } from '../helpers/swappable-store.js';

const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const HOUR = 3_600_000;

/** Polls a condition with a deadline (the loader and the timer run on their own once the fake clock moved). */
async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met within the deadline');
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const db of databases) {
  describe(`JournalLoader on ${db.dialect}`, () => {
    const cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
      while (cleanup.length) await cleanup.pop()!();
      await db.truncate();
    });

    it('each round loads what enters the horizon before it is due, and restores a wiped inner store', async () => {
      const clock = new FakeClock();
      const inner = swappableStore(new SqliteStore({ path: ':memory:', nodeId: 'n' }));
      const store = new JournaledStore(inner, db.journal({ maxConnections: 3 }), {
        nodeId: 'n',
        clock,
        horizonMs: 10 * 60_000,
      });
      await store.open();
      cleanup.push(() => store.close());
      const rounds: LoaderRound[] = [];
      const errors: unknown[] = [];
      const loader = new JournalLoader(
        store,
        clock,
        { onLoaded: () => undefined, onError: (e) => errors.push(e) },
        { intervalMs: 60_000 },
      );
      const t0 = clock.now();
      const far = aJob({ topic: 'l', now: t0, delayMs: 2 * HOUR });
      await store.pushMany([far], t0);
      loader.start();
      cleanup.push(() => loader.stop());
      const step = async (ms: number) => {
        clock.advance(ms);
        await loader.settled();
        rounds.push((await loader.round())!);
      };
      await step(0);
      expect(await store.inner.get(far.id)).toBeNull();
      // 1 h 50 min later the job enters the 10-minute horizon: loaded, still delayed, 10 minutes early at most
      await step(HOUR + 49 * 60_000);
      expect(await store.inner.get(far.id)).toBeNull();
      await step(2 * 60_000);
      expect(await store.inner.get(far.id)).toMatchObject({ state: 'delayed', runAt: far.runAt });
      expect(rounds.some((r) => r.loaded === 1)).toBe(true);
      // the inner store loses everything: the next round notices and restores
      await inner.swap(new SqliteStore({ path: ':memory:', nodeId: 'n' }));
      await step(1000);
      expect(rounds.at(-1)!.check).toBe('restored');
      expect(await store.inner.get(far.id)).toMatchObject({ state: 'delayed' });
      expect(errors).toEqual([]);
    });

    it('DelayqService runs the loader: a job pushed for next month is delivered when its time comes', async () => {
      const clock = new FakeClock();
      const store = new JournaledStore(
        new SqliteStore({ path: ':memory:', nodeId: 'svc' }),
        db.journal({ maxConnections: 3 }),
        {
          nodeId: 'svc',
          clock,
          horizonMs: 60_000,
        },
      );
      const service = new DelayqService({ store, clock, nodeId: 'svc', loader: { intervalMs: 30_000 } });
      await service.start();
      cleanup.push(() => service.close());
      const pushed = await service.push({ topic: 'later', delayMs: 30 * 86_400_000, body: { n: 1 } });
      expect(await store.inner.get(pushed.job.id)).toBeNull();
      expect(await service.reserve({ topics: ['later'] })).toEqual([]);
      // A month passes. Then the clock moves a few seconds at a time (the loader and the timer run on their own after
      // each move) until the loader has brought the job in, and until a consumer gets it once it is due.
      clock.advance(30 * 86_400_000 - 120_000);
      await waitUntil(async () => {
        clock.advance(2000);
        return (await store.inner.get(pushed.job.id)) !== null;
      });
      expect(clock.now()).toBeLessThan(pushed.job.runAt);
      let got: Awaited<ReturnType<typeof service.reserve>> = [];
      await waitUntil(async () => {
        clock.advance(5000);
        return (got = await service.reserve({ topics: ['later'] })).length > 0;
      });
      expect(got.map((r) => r.job.id)).toEqual([pushed.job.id]);
      expect(service.journal.status()).toMatchObject({ inner: 'ok', restoreMode: 'auto' });
    });
  });
}
