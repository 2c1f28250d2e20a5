import { Kysely, MysqlDialect, sql } from 'kysely';
import type { Pool } from 'mysql2';
import type { JournalDatabase } from '../schema.js';
import type { JournalDialect } from '../dialect.js';
import { SqlJournal } from '../sql-journal.js';
import { writeMysqlBatch } from './mysql-batch.js';

export interface MysqlJournalOptions {
  /** e.g. mysql://root@127.0.0.1:3306/delayq (the database must exist). */
  uri: string;
  /** Pool size. @defaultValue 10 */
  maxConnections?: number | undefined;
}

/**
 * The journal on MySQL 8 / MariaDB ≥ 10.6 (SKIP LOCKED): SqlJournal with batch writes as one
 * multi-statement packet (mysql-batch.ts) and GET_LOCK for migrations.
 */
export class MysqlJournal extends SqlJournal {
  constructor(options: MysqlJournalOptions) {
    // The driver is loaded when the pool first connects: a start without this journal never loads it.
    const makePool = async (): Promise<Pool> => {
      const { createPool } = await import('mysql2');
      return createPool({
        uri: options.uri,
        connectionLimit: options.maxConnections ?? 10,
        charset: 'utf8mb4',
        supportBigNumbers: true,
        bigNumberStrings: false,
        // For the batch writes' one-packet transactions; every value in them is escaped by the driver.
        multipleStatements: true,
      });
    };
    /** One pool per open journal, shared by Kysely and the batch writes. */
    let current: Promise<Pool> | undefined;
    const pool = (): Promise<Pool> => (current ??= makePool());
    const dialect: JournalDialect = {
      name: 'mysql',
      migrationsDir: new URL('./migrations/', import.meta.url),
      async prepare() {},
      // InnoDB keeps rows in primary-key order: a keyset page is a range read of the clustered index.
      async prepareRestoreScan() {},
      withMigrationLock: (db, run) =>
        db.connection().execute(async (conn) => {
          await sql`SELECT GET_LOCK('delayq_migrate', 60)`.execute(conn);
          try {
            return await run(conn);
          } finally {
            await sql`SELECT RELEASE_LOCK('delayq_migrate')`.execute(conn);
          }
        }),
      async appendHistory(db, ids, states, { at, event, attempt, node, reason }) {
        // One JSON argument of [id, state] pairs: the statement has 6 parameters whatever the number of rows.
        const pairs = JSON.stringify(ids.map((id, i) => [id, states[i]]));
        await sql`INSERT INTO delayq_job_history (job_id, at, event, state, attempt, node, reason)
          SELECT t.id, ${at}, ${event}, t.state, ${attempt}, ${node}, ${reason}
          FROM JSON_TABLE(${pairs}, '$[*]' COLUMNS (
            id VARCHAR(128) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
            state VARCHAR(16) PATH '$[1]')) AS t`.execute(db);
      },
      // MySQL has no RETURNING: a reserve reads its claims back (journaled-store/reservation-claims.ts).
      writeBatch: async (parts) => ({ created: await writeMysqlBatch(await pool(), parts), claimed: null }),
    };
    super(dialect, () => {
      current = undefined;
      return new Kysely<JournalDatabase>({ dialect: new MysqlDialect({ pool }) });
    });
  }
}
