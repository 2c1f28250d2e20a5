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
});
