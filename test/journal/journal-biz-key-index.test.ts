import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalJob } from '../../src/journal/journal.js';
import { newJournalJob } from '../../src/journal/journal-jobs.js';
import { JOURNAL_DATABASES, type JournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';

const ROWS = 20_000;
const PAGE = 5000;

// A bizKey's journal-only jobs (listJournalOnly, merged into a bizKey listing) are read from an index on
// the bizKey: without one, each page reads every journal-only row of the table.
describe.each(JOURNAL_DATABASES)('the bizKey read on %s', (dialect, makeDatabase) => {
  let db: JournalDatabase;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('reads a bizKey page from the bizKey index, not the whole table', async () => {
    const journal = db.journal();
    await journal.open();
    try {
      const now = Date.now();
      for (let i = 0; i < ROWS; i += PAGE) {
        const inserts: JournalJob[] = Array.from({ length: PAGE }, (_, k) =>
          newJournalJob(
            aJob({ id: `bk-${String(i + k).padStart(6, '0')}`, topic: 'bk', bizKey: `order-${(i + k) % 2000}`, now }),
            now,
            false,
          ),
        );
        await journal.write({ inserts, upserts: [], history: [], pushedBy: 'test' });
      }
      await db.query('ANALYZE ' + (dialect === 'postgres' ? '' : 'TABLE ') + 'delayq_jobs');
      const page = `SELECT * FROM delayq_jobs WHERE loaded = 0 AND biz_key = 'order-7' ORDER BY id LIMIT 50`;
      const plan = (await db.query(`EXPLAIN ${page}`)).map((r) => JSON.stringify(r)).join('\n');
      if (dialect === 'postgres')
        expect(plan).toMatch(
          /(Index|Bitmap Index) Scan on delayq_jobs_journal_only_biz_key|Index Scan using delayq_jobs_journal_only_biz_key/,
        );
      else expect(plan).toContain('delayq_jobs_biz_key');
      const found = await journal.listJournalOnly({ bizKey: 'order-7' }, null, 50);
      expect(found.map((j) => j.id)).toEqual(
        Array.from({ length: 10 }, (_, k) => `bk-${String(7 + 2000 * k).padStart(6, '0')}`),
      );
    } finally {
      await journal.close();
    }
  });
});
