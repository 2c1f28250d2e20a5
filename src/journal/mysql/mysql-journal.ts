import { Kysely, MysqlDialect, sql } from 'kysely';
import type { Pool } from 'mysql2';
import type { JournalDatabase } from '../journal-schema.js';
import { SqlJournal, type JournalDialect } from '../sql-journal.js';

export interface MysqlJournalOptions {
  /** e.g. mysql://root@127.0.0.1:3306/delayq (the database must exist). */
  uri: string;
  /** Pool size. @defaultValue 10 */
  maxConnections?: number | undefined;
}

/** Columns a live (asynchronous) upsert may change only while the row is not terminal. */
const GUARDED_COLUMNS = ['state', 'run_at', 'priority', 'attempts', 'last_error', 'loaded', 'updated_at'] as const;

/**
 * The journal on MySQL 8 / MariaDB ≥ 10.6 (SKIP LOCKED): SqlJournal with INSERT IGNORE,
 * ON DUPLICATE KEY UPDATE and GET_LOCK for migrations.
 */
export class MysqlJournal extends SqlJournal {
  constructor(options: MysqlJournalOptions) {
    const dialect: JournalDialect = {
      name: 'mysql',
      migrationsDir: new URL('./migrations/', import.meta.url),
      async prepare() {},
      withMigrationLock: (db, run) =>
        db.connection().execute(async (conn) => {
          await sql`SELECT GET_LOCK('delayq_migrate', 60)`.execute(conn);
          try {
            return await run(conn);
          } finally {
            await sql`SELECT RELEASE_LOCK('delayq_migrate')`.execute(conn);
          }
        }),
      insertIgnore: (insert) => insert.ignore(),
      upsert: (insert, guarded) => {
        if (!guarded) {
          return insert.onDuplicateKeyUpdate({
            ...Object.fromEntries(GUARDED_COLUMNS.map((c) => [c, sql.raw(`VALUES(${c})`)])),
            finished_at: sql.raw('VALUES(finished_at)'),
          });
        }
        // MySQL has no WHERE on this clause: every column keeps its value when the row is terminal.
        // Assignments run left to right and see earlier ones, so finished_at, which the test reads, comes last.
        return insert.onDuplicateKeyUpdate({
          ...Object.fromEntries(
            GUARDED_COLUMNS.map((c) => [c, sql.raw(`IF(finished_at IS NULL, VALUES(${c}), ${c})`)]),
          ),
          finished_at: sql.raw('IF(finished_at IS NULL, VALUES(finished_at), finished_at)'),
        });
      },
    };
    super(dialect, () => {
      // The driver is loaded when the pool first connects: a start without this journal never loads it.
      const pool = async (): Promise<Pool> => {
        const { createPool } = await import('mysql2');
        return createPool({
          uri: options.uri,
          connectionLimit: options.maxConnections ?? 10,
          charset: 'utf8mb4',
          supportBigNumbers: true,
          bigNumberStrings: false,
        });
      };
      return new Kysely<JournalDatabase>({ dialect: new MysqlDialect({ pool }) });
    });
  }
}
