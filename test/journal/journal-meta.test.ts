import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOURNAL_DATABASES, type JournalDatabase } from '../helpers/journal-databases.js';

// The journal's meta rows (the store marker, the reconciler's cursor) are written by several callers at once:
// a restore, the loader's marker check and other instances. Concurrent writes of one name must all succeed.
describe.each(JOURNAL_DATABASES)('journal meta on %s', (_dialect, makeDatabase) => {
  let db: JournalDatabase;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('setMeta of one name from many callers at once: no key collision, one of the values kept', async () => {
    const journal = db.journal();
    await journal.open();
    try {
      await journal.setMeta('marker', 'first');
      for (let round = 0; round < 5; round++) {
        const values = Array.from({ length: 20 }, (_, i) => `r${round}-${i}`);
        await Promise.all(values.map((v) => journal.setMeta('marker', v)));
        expect(values).toContain(await journal.getMeta('marker'));
      }
      await journal.setMeta('marker', 'last');
      expect(await journal.getMeta('marker')).toBe('last');
    } finally {
      await journal.close();
    }
  });
});
