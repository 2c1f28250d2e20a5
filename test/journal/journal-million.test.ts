import { afterAll, describe, expect, it } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store.js';
import { MARKER_TOPIC } from '../../src/journal/journal-jobs.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../helpers/fake-clock.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../helpers/jobs.js';

const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

const DAY = 86_400_000;
const MINUTE = 60_000;
const TOTAL = Number(process.env.DELAYQ_MILLION ?? 1_000_000);

/** Jobs the inner store holds, the marker aside (all of them, or only those still waiting: delayed). */
async function innerJobs(inner: Store, state?: 'delayed'): Promise<number> {
  let n = 0;
  for (const s of await inner.stats()) {
    if (s.topic !== MARKER_TOPIC) n += state ? s.counts[state] : Object.values(s.counts).reduce((a, b) => a + b, 0);
  }
  return n;
}

for (const db of databases) {
  describe(`1M jobs due in 30 days on ${db.dialect}`, () => {
    it('cost the inner store nothing until they enter the horizon, then all fire', { timeout: 600_000 }, async () => {
      const clock = new FakeClock();
      const inner = new SqliteStore({ path: ':memory:', nodeId: 'node-m' });
      const store = new JournaledStore(inner, db.journal({ maxConnections: 6 }), { nodeId: 'node-m', clock, horizonMs: 10 * MINUTE });
      await store.open();
      const t0 = clock.now();
      const topic = 'million';
      // 1M jobs spread over one hour, 30 days from now; pushed 5000 at a time, 4 batches in flight.
      const dueFrom = t0 + 30 * DAY;
      let next = 0;
      const pushStarted = Date.now();
      await Promise.all(
        [0, 1, 2, 3].map(async () => {
          while (next < TOTAL) {
            const start = next;
            next += 5000;
            const jobs = Array.from({ length: Math.min(5000, TOTAL - start) }, (_, i) =>
              aJob({ id: `m-${start + i}`, topic, runAt: dueFrom + Math.floor(((start + i) * 3_600_000) / TOTAL), body: '{"n":1}' }),
            );
            const results = await store.push(jobs, t0);
            if (!results.every((r) => r.created)) throw new Error('a push was not created');
          }
        }),
      );
      const pushMs = Date.now() - pushStarted;
      console.log(`[${db.dialect}] pushed ${TOTAL} in ${pushMs} ms`);
      expect(await innerJobs(inner)).toBe(0);
      expect((await store.stats()).find((s) => s.topic === topic)!.counts.delayed).toBe(TOTAL);

      // 29 days pass: nothing enters the inner store yet.
      const samples: number[] = [];
      for (let day = 1; day <= 29; day++) {
        clock.set(t0 + day * DAY);
        expect(await store.loadDue(clock.now(), 10_000)).toBe(0);
        samples.push(await innerJobs(inner));
      }
      expect(samples.every((n) => n === 0)).toBe(true);

      // The last hour: every 5 minutes the loader brings in what enters the 10-minute horizon and the
      // timer fires what is due. The inner store never waits on more than the horizon's worth of jobs
      // (fired ones stay ready there until consumers take them; this test consumes only a few).
      clock.set(dueFrom - 10 * MINUTE);
      let fired = 0;
      let peak = 0;
      const loadStarted = Date.now();
      while (fired < TOTAL) {
        clock.advance(5 * MINUTE);
        const now = clock.now();
        while ((await store.loadDue(now, 20_000)) === 20_000) {
          /* keep loading */
        }
        for (;;) {
          const promoted = await store.promoteDue(now, 50_000);
          fired += promoted.count;
          if (promoted.count < 50_000) break;
        }
        peak = Math.max(peak, await innerJobs(inner, 'delayed'));
        // they are deliverable: a consumer takes a few and finishes them
        for (const r of await store.reserve([topic], 5, now)) expect((await store.finish(r.job.id, r.token, now)).ok).toBe(true);
        if (now > dueFrom + 2 * 3_600_000) break;
      }
      expect(fired).toBe(TOTAL);
      expect(peak).toBeLessThanOrEqual(Math.ceil(TOTAL / 6) + 1);
      console.log(
        `[${db.dialect}] ${TOTAL} far jobs: push ${pushMs} ms (${Math.round(TOTAL / (pushMs / 1000))}/s); inner jobs while waiting 29 days: ${Math.max(...samples)}; ` +
          `peak delayed jobs in the inner store in the last hour: ${peak}; load+fire ${Date.now() - loadStarted} ms`,
      );
      await store.close();
    });
  });
}
