import { afterAll } from 'vitest';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { mysqlJournalDatabase, postgresJournalDatabase } from '../helpers/journal-databases.js';
import { storeModelTest } from '../store/store.model.js';

// The state-machine model on the journal decorator: SQLite (:memory:) inside, the journal on each database.
// Every run uses a fresh random topic, so runs need no truncate between them.
// DELAYQ_MODEL_RUNS=N for a longer search (RELIABILITY.md records one).
const runs = Number(process.env['DELAYQ_MODEL_RUNS'] ?? 40);
const databases = [await postgresJournalDatabase(), await mysqlJournalDatabase()];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

for (const db of databases) {
  storeModelTest(
    `journaled sqlite + ${db.dialect}`,
    () =>
      new JournaledStore(new SqliteStore({ path: ':memory:', nodeId: 'model' }), db.journal({ maxConnections: 2 }), {
        nodeId: 'model',
      }),
    runs,
    { timeoutMs: 120_000 + runs * 2000 },
  );
}
