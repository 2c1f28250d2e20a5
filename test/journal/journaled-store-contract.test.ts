import { afterAll } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { sqliteReadCost } from '../helpers/sqlite-read-cost.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { storeContract } from '../../src/testing/store-contract/store.contract.js';

// The Store contract on the decorator: SQLite (:memory:) inside, the journal on each database.
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

for (const db of databases) {
  storeContract(
    `journaled sqlite + ${db.dialect}`,
    async () => {
      await db.truncate();
      return new JournaledStore(
        new SqliteStore({ path: ':memory:', nodeId: 'test-node' }),
        db.journal({ maxConnections: 4 }),
        { nodeId: 'test-node' },
      );
    },
    // what the reads touch in the inner store (the journal's side: its counters and indexes, docs/journal.md)
    { readCost: (store) => sqliteReadCost((store as JournaledStore).inner as SqliteStore) },
  );
}
