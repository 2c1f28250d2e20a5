import { expect } from 'vitest';
import type { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { aJob } from '../../src/testing/jobs.js';

const HOUR = 3_600_000;
const tick = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The must-show of the journal: under a steady load (producers pushing and cancelling, a consumer
 * reserving and finishing) the inner store loses everything (`wipe`). The decorator must notice and
 * restore; then every acknowledged job that was neither finished nor cancelled (acknowledged) is
 * delivered exactly once, and no finished or cancelled job comes back. A second restore changes nothing.
 */
export async function wipeUnderLoad(
  store: JournaledStore,
  topic: string,
  startAt: number,
  wipe: () => Promise<void>,
): Promise<void> {
  let now = startAt;
  const acked = new Set<string>();
  const finished = new Set<string>();
  const cancelled = new Set<string>();
  let producing = true;
  const producer = async () => {
    for (let round = 0; round < 40; round++) {
      // ready now, soon, in a few seconds, and beyond the horizon (journal only)
      const jobs = Array.from({ length: 24 }, (_, i) =>
        aJob({ topic, now, delayMs: [0, 500, 5000, 2 * HOUR][i % 4]! }),
      );
      try {
        for (const r of await store.pushMany(jobs, now)) acked.add(r.job.id);
        for (const victim of [jobs[1]!, jobs[3]!])
          if ((await store.cancel(victim.id, now)).ok) cancelled.add(victim.id);
      } catch {
        /* not acknowledged: nothing is expected of these */
      }
      now += 50;
      if (round === 20) await wipe();
      await tick();
    }
    producing = false;
  };
  const consumer = async () => {
    while (producing) {
      try {
        await store.promoteDue(now, 1000);
        for (const r of (await store.reserve([topic], 10, now)).reservations) {
          if ((await store.finish(r.job.id, r.token, now)).ok) finished.add(r.job.id);
        }
      } catch {
        /* the inner store is down or was wiped under us */
      }
      await tick();
    }
  };
  await Promise.all([producer(), consumer()]);
  expect(finished.size).toBeGreaterThan(50);
  expect(cancelled.size).toBeGreaterThan(40);

  // The decorator notices the missing marker and restores by itself (retrying while the store reconnects);
  // the inner store's own reset notice may have started that restore already (then this check finds it done).
  let check: string | undefined;
  for (let i = 0; i < 100 && check === undefined; i++) {
    check = await store.checkInner(now).catch(() => undefined);
    if (check === undefined) await new Promise((r) => setTimeout(r, 100));
  }
  expect(check === 'restored' || (check === 'ok' && store.status().lastRestore !== null)).toBe(true);
  const first = store.status().lastRestore!;
  expect(first.restored).toBeGreaterThan(0);
  expect(first.leftInJournal).toBeGreaterThan(0);
  expect(await store.checkInner(now)).toBe('ok');
  const second = await store.restore({ expire: true }, now);
  expect(second).toMatchObject({
    restored: 0,
    scanned: first.scanned,
    alreadyPresent: first.restored + first.alreadyPresent,
  });

  // Drain: the clock moves past every due time; the loader brings in the far jobs.
  const delivered = new Map<string, number>();
  for (let step = 0; step < 30; step++) {
    now += 10 * 60_000;
    await store.loadDue(now, 10_000);
    while ((await store.promoteDue(now, 10_000)).count > 0) {
      /* all due */
    }
    // A reservation the wipe caught stays its holder's until its TTR lapses; then the reaper retries it.
    for (const l of await store.listLapsed(now, 10_000))
      await store.retry(l.id, l.token, now, { runAt: now, error: 'ttr lapsed' });
    for (;;) {
      const got = (await store.reserve([topic], 100, now)).reservations;
      if (!got.length) break;
      for (const r of got) {
        delivered.set(r.job.id, (delivered.get(r.job.id) ?? 0) + 1);
        expect((await store.finish(r.job.id, r.token, now)).ok).toBe(true);
      }
    }
  }
  const expected = [...acked].filter((id) => !finished.has(id) && !cancelled.has(id));
  expect(expected.length).toBeGreaterThan(100);
  expect(expected.filter((id) => !delivered.has(id))).toEqual([]);
  expect([...delivered.keys()].filter((id) => finished.has(id) || cancelled.has(id))).toEqual([]);
  expect([...delivered.values()].every((n) => n === 1)).toBe(true);
}
