import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalJob } from '../../src/journal/journal.js';
import { MARKER_TOPIC, newJournalJob } from '../../src/journal/journal-jobs.js';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { aJob } from '../../src/testing/jobs.js';

const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
let redis: JournalRedis;
beforeAll(async () => {
  redis = await startJournalRedis();
});
afterAll(async () => {
  await redis.stop();
  for (const db of databases) await db.drop();
});

const DAY = 86_400_000;
const MINUTE = 60_000;
const TOTAL = Number(process.env.DELAYQ_MILLION ?? 1_000_000);
/** Pushed through JournaledStore.pushMany (the real routing decision); the rest is batch-inserted into the journal. */
const THROUGH_PUSH = 20_000;

/** Jobs the inner store holds, the marker aside (all of them, or only those still waiting). */
async function innerJobs(inner: Store, state?: 'delayed'): Promise<number> {
  let n = 0;
  for (const s of await inner.stats()) {
    if (s.topic !== MARKER_TOPIC) n += state ? s.counts[state] : Object.values(s.counts).reduce((a, b) => a + b, 0);
  }
  return n;
}

for (const db of databases) {
  describe(`1M jobs due in 30 days, redis + ${db.dialect}`, () => {
    it('cost Redis no memory until they enter the horizon, then all fire', { timeout: 900_000 }, async () => {
      await redis.flushAll();
      const clock = new FakeClock();
      // A generous command timeout: the machine is shared and busy; loading pushes 5000 jobs per call.
      const inner = new RedisStore({ url: redis.url, nodeId: 'node-m', commandTimeoutMs: 30_000 });
      const journal = db.journal({ maxConnections: 6 });
      const store = new JournaledStore(inner, journal, { nodeId: 'node-m', clock, horizonMs: 10 * MINUTE });
      await store.open();
      const t0 = clock.now();
      const topic = 'million';
      const dueFrom = t0 + 30 * DAY;
      const runAtOf = (k: number) => dueFrom + Math.floor((k * 3_600_000) / TOTAL); // spread over one hour
      const memoryBefore = await redis.usedMemory();

      const fillStarted = Date.now();
      // The real push path decides "journal only" for the first slice…
      for (let i = 0; i < THROUGH_PUSH; i += 5000) {
        const jobs = Array.from({ length: 5000 }, (_, k) =>
          aJob({ id: `m-${i + k}`, topic, runAt: runAtOf(i + k), body: '{"n":1}' }),
        );
        const results = await store.pushMany(jobs, t0);
        expect(results.every((r) => r.created && r.job.state === 'delayed')).toBe(true);
      }
      // …and the rest goes in as batch inserts of the same rows (10k per statement group, 2 in flight).
      let next = THROUGH_PUSH;
      await Promise.all(
        [0, 1].map(async () => {
          while (next < TOTAL) {
            const from = next;
            next = Math.min(TOTAL, next + 10_000);
            const rows: JournalJob[] = [];
            for (let k = from; k < next; k++)
              rows.push(newJournalJob(aJob({ id: `m-${k}`, topic, runAt: runAtOf(k), body: '{"n":1}' }), t0, false));
            await journal.write({ inserts: rows, upserts: [], history: [], pushedBy: 'node-m' });
          }
        }),
      );
      const fillMs = Date.now() - fillStarted;
      expect(await innerJobs(inner)).toBe(0);
      expect((await store.stats()).find((s) => s.topic === topic)!.counts.delayed).toBe(TOTAL);
      const memoryAfterPush = await redis.usedMemory();

      // 29 days pass: nothing enters Redis.
      const samples: number[] = [];
      for (let day = 1; day <= 29; day++) {
        clock.set(t0 + day * DAY);
        expect(await store.loadDue(clock.now(), 10_000)).toBe(0);
        samples.push(await redis.usedMemory());
      }
      expect(await innerJobs(inner)).toBe(0);

      // The last hour: every 5 minutes the loader brings in what enters the 10-minute horizon and the timer
      // fires what is due. Redis never waits on more than the horizon's worth of jobs.
      clock.set(dueFrom - 10 * MINUTE);
      let fired = 0;
      let peakWaiting = 0;
      const fireStarted = Date.now();
      while (fired < TOTAL && clock.now() < dueFrom + 2 * 3_600_000) {
        clock.advance(5 * MINUTE);
        const now = clock.now();
        while ((await store.loadDue(now, 5000)) === 5000) {
          /* keep loading */
        }
        for (;;) {
          const promoted = await store.promoteDue(now, 20_000);
          fired += promoted.count;
          if (promoted.count < 20_000) break;
        }
        peakWaiting = Math.max(peakWaiting, await innerJobs(inner, 'delayed'));
        for (const r of (await store.reserve([topic], 5, now)).reservations)
          expect((await store.finish(r.job.id, r.token, now)).ok).toBe(true);
      }
      const memoryAllFired = await redis.usedMemory();
      console.log(
        `[redis + ${db.dialect}] ${TOTAL} jobs due in 30 days: journal fill ${fillMs} ms; Redis used_memory before ${memoryBefore} B, ` +
          `after the push ${memoryAfterPush} B, over 29 days ${Math.min(...samples)}–${Math.max(...samples)} B; ` +
          `at most ${peakWaiting} delayed jobs in Redis in the last hour; all ${fired} fired (ready) in ${Date.now() - fireStarted} ms, ` +
          `Redis then ${memoryAllFired} B`,
      );
      expect(fired).toBe(TOTAL);
      expect(peakWaiting).toBeLessThanOrEqual(Math.ceil(TOTAL / 6) + 1);
      // flat: less than 1 MB of growth for 1M pending jobs (about 0 bytes per job), against ~100 MB once they fire
      expect(memoryAfterPush - memoryBefore).toBeLessThan(1_000_000);
      expect(Math.max(...samples) - memoryBefore).toBeLessThan(1_000_000);
      expect(memoryAllFired - memoryBefore).toBeGreaterThan(TOTAL * 20);
      await store.close();
    });
  });
}
