import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-purge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const T0 = Date.UTC(2026, 0, 1);

describe('SqliteStore purge and its page cache', () => {
  it('purges in transactions of a few hundred jobs, the event loop free between them', async () => {
    const store = new SqliteStore({ path: join(dir, 'purge.db'), nodeId: 'n' });
    await store.open();
    try {
      const jobs = Array.from({ length: 1000 }, () => aJob({ topic: 'p', delayMs: 60_000 }));
      await store.pushMany(jobs, T0);
      for (const job of jobs) await store.cancel(job.id, T0 + 1);
      // Turns of the event loop that ran while the purge went on: none if it held one transaction.
      let turns = 0;
      let purging = true;
      const count = () => {
        if (!purging) return;
        turns++;
        setImmediate(count);
      };
      setImmediate(count);
      const purged = await store.purge(T0 + 2, 700);
      purging = false;
      expect(purged).toBe(700);
      expect(turns).toBeGreaterThanOrEqual(3);
      expect(await store.purge(T0 + 2, 10_000)).toBe(300);
      expect(await store.purge(T0 + 2, 10_000)).toBe(0);
      expect(await store.get(jobs[0]!.id)).toBeNull();
      expect(await store.history(jobs[999]!.id)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('opens with the page cache it is given (cache_size in KiB), 256 MiB by default', async () => {
    for (const [cacheMb, kib] of [
      [undefined, -256 * 1024],
      [16, -16 * 1024],
    ] as const) {
      const store = new SqliteStore({
        path: join(dir, `cache-${cacheMb}.db`),
        nodeId: 'n',
        ...(cacheMb === undefined ? {} : { cacheMb }),
      });
      await store.open();
      try {
        const db = (store as unknown as { db: Database.Database }).db;
        expect(db.pragma('cache_size', { simple: true })).toBe(kib);
      } finally {
        await store.close();
      }
    }
  });
});
