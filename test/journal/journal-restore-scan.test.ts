import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalJob } from '../../src/journal/journal.js';
import { newJournalJob } from '../../src/journal/journal-jobs.js';
import { JOURNAL_DATABASES, type JournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';

const ROWS = 20_000;
const PAGE = 5000;

// A restore pages through the unfinished rows by keyset (id > the last id, LIMIT page). Each page must be a range
// read in id order: planned as a sort of every remaining row, a 1M-job restore sorts 1M rows 200 times.
describe.each(JOURNAL_DATABASES)('the restore scan on %s', (dialect, makeDatabase) => {
  let db: JournalDatabase;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('reads each keyset page in id order from an index, on a table filled since its last statistics', async () => {
    const journal = db.journal();
    await journal.open();
    try {
      const now = Date.now();
      for (let i = 0; i < ROWS; i += PAGE) {
        const inserts: JournalJob[] = Array.from({ length: PAGE }, (_, k) =>
          newJournalJob(
            aJob({ id: `scan-${String(i + k).padStart(6, '0')}`, topic: 'scan', now, delayMs: 60_000 }),
            now,
            true,
          ),
        );
        await journal.write({ inserts, upserts: [], history: [], pushedBy: 'test' });
      }
      await journal.prepareRestoreScan();
      const page = `SELECT * FROM delayq_jobs WHERE finished_at IS NULL AND id > 'scan-001000' ORDER BY id LIMIT ${PAGE}`;
      const plan = (await db.query(`EXPLAIN ${page}`)).map((r) => JSON.stringify(r)).join('\n');
      if (dialect === 'postgres') {
        expect(plan).toMatch(/Index Scan using delayq_jobs_(unfinished|pkey)/);
        expect(plan).not.toMatch(/Sort/);
      } else {
        expect(plan).toContain('PRIMARY');
        expect(plan).not.toMatch(/filesort/i);
      }
      const first = await journal.listUnfinished('scan-001000', PAGE);
      expect(first.map((j) => j.id)).toEqual(
        Array.from({ length: PAGE }, (_, k) => `scan-${String(1001 + k).padStart(6, '0')}`),
      );
    } finally {
      await journal.close();
    }
  });

  // A full restore reads the rows the inner store held and the journal-only ones due within the horizon, each from an
  // index of those rows: a backlog of far-future jobs (journal-only, beyond the horizon) is never read.
  it('reads the loaded rows and the journal-only rows due soon from their indexes, never the far-future backlog', async () => {
    await db.truncate();
    const journal = db.journal();
    await journal.open();
    try {
      const now = Date.now();
      const YEAR = 365 * 24 * 3_600_000;
      const row = (id: string, delayMs: number, loaded: boolean) =>
        newJournalJob(aJob({ id, topic: 'scan', now, delayMs }), now, loaded);
      for (let i = 0; i < ROWS; i += PAGE) {
        const inserts = Array.from({ length: PAGE }, (_, k) =>
          row(`far-${String(i + k).padStart(6, '0')}`, YEAR + i + k, false),
        );
        await journal.write({ inserts, upserts: [], history: [], pushedBy: 'test' });
      }
      const held = Array.from({ length: 30 }, (_, k) => row(`held-${String(k).padStart(3, '0')}`, 60_000, true));
      const soon = Array.from({ length: 20 }, (_, k) =>
        row(`soon-${String(k).padStart(3, '0')}`, 120_000 + (k % 4), false),
      );
      await journal.write({ inserts: [...held, ...soon], upserts: [], history: [], pushedBy: 'test' });
      await journal.prepareRestoreScan();

      const horizonAt = now + 3_600_000;
      const loadedPage = `SELECT * FROM delayq_jobs WHERE loaded = 1 AND finished_at IS NULL AND id > 'held-010' ORDER BY id LIMIT ${PAGE}`;
      const duePage = `SELECT * FROM delayq_jobs WHERE loaded = 0 AND finished_at IS NULL AND run_at < ${horizonAt}
        AND run_at >= ${now + 120_001} AND (run_at > ${now + 120_001} OR id > 'soon-005') ORDER BY run_at, id LIMIT ${PAGE}`;
      const plan = async (query: string) =>
        (await db.query(`EXPLAIN ${query}`)).map((r) => JSON.stringify(r)).join('\n');
      if (dialect === 'postgres') {
        expect(await plan(loadedPage)).toMatch(/Index Scan using delayq_jobs_loaded/);
        expect(await plan(loadedPage)).not.toMatch(/Sort/);
        expect(await plan(duePage)).toMatch(/Index Scan using delayq_jobs_to_load/);
      } else {
        expect(await plan(loadedPage)).toContain('delayq_jobs_loaded');
        expect(await plan(duePage)).toContain('delayq_jobs_to_load');
        expect(await plan(loadedPage)).not.toMatch(/filesort/i);
        expect(await plan(duePage)).not.toMatch(/filesort/i);
      }

      // Pages of 7: every held and every nearing row once, in order, and nothing else.
      const read: string[] = [];
      for (let last: JournalJob | null = null; ;) {
        const page: JournalJob[] = await journal.listLoaded(last?.id ?? null, 7);
        read.push(...page.map((j) => j.id));
        if (page.length < 7) break;
        last = page.at(-1)!;
      }
      expect(read).toEqual(held.map((j) => j.id));
      const due: string[] = [];
      for (let last: JournalJob | null = null; ;) {
        const page: JournalJob[] = await journal.listJournalOnlyDue(
          horizonAt,
          last && { runAt: last.runAt, id: last.id },
          7,
        );
        due.push(...page.map((j) => j.id));
        if (page.length < 7) break;
        last = page.at(-1)!;
      }
      const byDue = [...soon].sort((a, b) => a.runAt - b.runAt || (a.id < b.id ? -1 : 1));
      expect(due).toEqual(byDue.map((j) => j.id));
    } finally {
      await journal.close();
    }
  });
});
