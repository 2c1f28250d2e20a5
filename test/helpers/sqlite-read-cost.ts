import type Database from 'better-sqlite3';
import type { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ReadCost } from '../../src/testing/index.js';
import { planOf, recordStatements, rowsOf, scannedBacklogTable } from './sqlite-statement-log.js';

/**
 * What a read touched on SQLite: every statement it ran, planned again with EXPLAIN QUERY PLAN and its
 * parameters. A full SCAN of a backlog table (with or without an index: a SCAN walks it all) counts that
 * table's rows; anything else (SEARCH, a scan of a small table, a statement with no plan) counts 1.
 */
export function sqliteReadCost(store: SqliteStore): ReadCost {
  const db = (store as unknown as { db: Database.Database }).db;
  return {
    async measure(read) {
      const { value, ran } = await recordStatements(read);
      let touched = 0;
      for (const statement of ran) {
        const plan = planOf(db, statement);
        if (plan.length === 0) touched += 1;
        for (const detail of plan) {
          const scanned = scannedBacklogTable(detail);
          touched += scanned ? rowsOf(db, scanned) : 1;
        }
      }
      return { value, touched };
    },
  };
}
