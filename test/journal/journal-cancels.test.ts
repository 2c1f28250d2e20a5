import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newJournalJob } from '../../src/journal/journal-jobs.js';
import { aJob } from '../../src/testing/jobs.js';
import { JOURNAL_DATABASES, type JournalDatabase } from '../helpers/journal-databases.js';

// The cancels of one event-loop turn share one transaction (sql/cancels.ts); a turn may name more ids
// than one statement can carry as parameters (65,535 in both drivers).
describe.each(JOURNAL_DATABASES)('journal cancels on %s', (_dialect, makeDatabase) => {
  let db: JournalDatabase;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('70,000 cancels in one turn: each answered, the unfinished jobs among them cancelled once', async () => {
    const journal = db.journal();
    await journal.open();
    try {
      const now = Date.now();
      const real = ['c-a', 'c-b', 'c-c'].map((id) => newJournalJob(aJob({ id, delayMs: 60_000, now }), now, true));
      await journal.write({ inserts: real, upserts: [], history: [], pushedBy: 'test' });
      // The real ids sit among 70,000 unknown ones, one of them named twice.
      const ids = Array.from({ length: 70_000 }, (_, i) => `c-missing-${i}`);
      ids.splice(10, 0, 'c-a');
      ids.splice(40_000, 0, 'c-b');
      ids.push('c-c', 'c-b');
      const answers = await Promise.all(ids.map((id) => journal.cancel(id, now)));
      const cancelled = ids.filter((_, i) => answers[i]);
      expect(cancelled).toEqual(['c-a', 'c-b', 'c-c']);
      for (const id of ['c-a', 'c-b', 'c-c']) expect((await journal.get(id))?.state).toBe('cancelled');
    } finally {
      await journal.close();
    }
  }, 60_000);
});
