import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { JournalDatabase } from '../schema.js';
import type { BatchWritten, JournalDialect } from '../dialect.js';
import { SqlJournal } from '../sql-journal.js';
import { writePostgresBatch } from './postgres-batch.js';

export interface PostgresJournalOptions {
  /** e.g. postgres://postgres@127.0.0.1:5432/test */
  connectionString: string;
  /** Schema for the journal tables (created if missing). @defaultValue public */
  schema?: string | undefined;
  /** Pool size. @defaultValue 10 */
  maxConnections?: number | undefined;
}

const INT8_OID = 20;
const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

/** The journal on PostgreSQL: SqlJournal with one-statement batch writes (postgres-batch.ts) and an advisory lock for migrations. */
export class PostgresJournal extends SqlJournal {
  constructor(options: PostgresJournalOptions) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_RE.test(schema)) throw new TypeError(`journal schema must match ${SCHEMA_RE}: ${schema}`);
    // The driver is loaded when the pool first connects: a start without this journal never loads it.
    const makePool = async (): Promise<pg.Pool> => {
      const { default: pg } = await import('pg');
      const created = new pg.Pool({
        connectionString: options.connectionString,
        max: options.maxConnections ?? 10,
        options: `-c search_path=${schema}`,
        // BIGINT as a JS number (epoch ms fit easily); set per pool, not globally.
        types: {
          getTypeParser: ((oid: number, format?: string) =>
            oid === INT8_OID
              ? (v: string) => Number(v)
              : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
        },
      });
      // After a database restart a client emits 'error' (idle or between queries); unheard, it would end the
      // process. The query in flight fails on its own and the pool connects afresh for the next one.
      created.on('error', () => undefined);
      created.on('connect', (client) => client.on('error', () => undefined));
      return created;
    };
    /** One pool per open journal, shared by Kysely and the batch writes. */
    let current: Promise<pg.Pool> | undefined;
    const pool = (): Promise<pg.Pool> => (current ??= makePool());
    const dialect: JournalDialect = {
      name: 'postgres',
      migrationsDir: new URL('./migrations/', import.meta.url),
      async prepare(db) {
        await sql.raw(`CREATE SCHEMA IF NOT EXISTS ${schema}`).execute(db);
      },
      withMigrationLock: (db, run) =>
        db.connection().execute(async (conn) => {
          await sql`SELECT pg_advisory_lock(hashtext(${`delayq_migrate:${schema}`}))`.execute(conn);
          try {
            return await run(conn);
          } finally {
            await sql`SELECT pg_advisory_unlock(hashtext(${`delayq_migrate:${schema}`}))`.execute(conn);
          }
        }),
      async prepareRestoreScan(db) {
        // Fresh statistics keep each keyset page an index range scan (ANALYZE samples, so it is quick).
        await sql`ANALYZE delayq_jobs`.execute(db);
      },
      async appendHistory(db, ids, states, { at, event, attempt, node, reason }) {
        await sql`INSERT INTO delayq_job_history (job_id, at, event, state, attempt, node, reason)
          SELECT t.id, ${at}, ${event}, t.state, ${attempt}, ${node}, ${reason}
          FROM unnest(${ids}::text[], ${states}::text[]) AS t(id, state)`.execute(db);
      },
      async writeBatch(parts) {
        const p = await pool();
        if (parts.length === 1) return writePostgresBatch(p, parts[0]!);
        // Several statements (a very large batch): one transaction on one connection.
        const client = await p.connect();
        let broken: Error | undefined;
        try {
          await client.query('BEGIN');
          const created: string[] = [];
          const claimed: NonNullable<BatchWritten['claimed']> = [];
          for (const part of parts) {
            const written = await writePostgresBatch(client, part);
            created.push(...written.created);
            claimed.push(...(written.claimed ?? []));
          }
          await client.query('COMMIT');
          return { created, claimed };
        } catch (err) {
          await client.query('ROLLBACK').catch((e: Error) => (broken = e));
          throw err;
        } finally {
          client.release(broken);
        }
      },
    };
    super(dialect, () => {
      current = undefined;
      return new Kysely<JournalDatabase>({ dialect: new PostgresDialect({ pool }) });
    });
  }
}
