import { afterAll } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { storeContract } from '../store/store.contract.js';

// The Store contract on the decorator: SQLite (:memory:) inside, the journal on each database.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

for (const db of databases) {
  storeContract(`journaled sqlite + ${db.dialect}`, async () => {
    await db.truncate();
    return new JournaledStore(
      new SqliteStore({ path: ':memory:', nodeId: 'test-node' }),
      db.journal({ maxConnections: 4 }),
      { nodeId: 'test-node' },
    );
  });
}
