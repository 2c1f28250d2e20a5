import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalJob } from '../../src/journal/journal.js';
import { newJournalJob } from '../../src/journal/journal-jobs.js';
import { JOURNAL_DATABASES, type JournalDatabase } from '../helpers/journal-databases.js';
import { aJob } from '../../src/testing/jobs.js';

const ROWS = 20_000;
const PAGE = 5000;
const RESERVED = 5;

// A process's first reconciliation passes read the rows the journal holds reserved (Journal.listReserved). Found by
// walking the unfinished rows in id order, that read touched every unfinished row when few are reserved: ten
// million at scale, at every start. It must be a range of an index of the reserved rows.
describe.each(JOURNAL_DATABASES)('the reserved rows read at start on %s', (dialect, makeDatabase) => {
  let db: JournalDatabase;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it(`reads the reserved rows from their own index among ${ROWS} unfinished rows`, async () => {
    const journal = db.journal();
    await journal.open();
    try {
      const now = Date.now();
      for (let i = 0; i < ROWS; i += PAGE) {
        const inserts: JournalJob[] = Array.from({ length: PAGE }, (_, k) => {
          const n = i + k;
          const job = newJournalJob(
            aJob({ id: `held-${String(n).padStart(6, '0')}`, topic: 'held', now, delayMs: 60_000 }),
            now,
            true,
          );
          // The last ids are the reserved ones: a walk in id order from the first meets them last.
          return n < ROWS - RESERVED
            ? job
            : { ...job, state: 'reserved', token: `token-${n}`, reservedAt: now, deadlineAt: now + 30_000 };
        });
        await journal.write({ inserts, upserts: [], history: [], pushedBy: 'test' });
      }
      const read = `SELECT * FROM delayq_jobs WHERE finished_at IS NULL AND state = 'reserved' ORDER BY id LIMIT 1000`;
      const plan = (await db.query(`EXPLAIN ${read}`)).map((r) => JSON.stringify(r)).join('\n');
      if (dialect === 'postgres') {
        expect(plan).toMatch(/Index Scan using delayq_jobs_reserved/);
        expect(plan).not.toMatch(/Seq Scan|Sort/);
      } else {
        const [row] = await db.query<{ key: string; rows: number }>(`EXPLAIN ${read}`);
        expect(row!.key).toBe('delayq_jobs_reserved');
        expect(Number(row!.rows)).toBeLessThanOrEqual(100);
        expect(plan).not.toMatch(/filesort/i);
      }
      const reserved = await journal.listReserved(1000);
      expect(reserved.map((j) => j.id)).toEqual(
        Array.from({ length: RESERVED }, (_, k) => `held-${String(ROWS - RESERVED + k).padStart(6, '0')}`),
      );
    } finally {
      await journal.close();
    }
  });
});
