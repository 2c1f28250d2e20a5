import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import type { JobRow, JournalDatabase } from '../journal-schema.js';
import { SqlJournal, type JournalDialect } from '../sql-journal.js';

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

/** The journal on PostgreSQL: SqlJournal with ON CONFLICT upserts and an advisory lock for migrations. */
export class PostgresJournal extends SqlJournal {
  constructor(options: PostgresJournalOptions) {
    const schema = options.schema ?? 'public';
    if (!SCHEMA_RE.test(schema)) throw new TypeError(`journal schema must match ${SCHEMA_RE}: ${schema}`);
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
      async insertJobs(trx, rows) {
        const col = <K extends keyof JobRow>(k: K) => rows.map((r) => r[k]);
        const result = await sql<{ id: string }>`
          INSERT INTO delayq_jobs (id, topic, tag, biz_key, body, state, run_at, priority, ttr_ms, ttl_ms, retry,
            attempts, last_error, created_at, finished_at, loaded, push_nonce, pushed_by, updated_at)
          SELECT * FROM unnest(${col('id')}::text[], ${col('topic')}::text[], ${col('tag')}::text[], ${col('biz_key')}::text[],
            ${col('body')}::text[], ${col('state')}::text[], ${col('run_at')}::bigint[], ${col('priority')}::int[],
            ${col('ttr_ms')}::int[], ${col('ttl_ms')}::bigint[], ${col('retry')}::text[], ${col('attempts')}::int[],
            ${col('last_error')}::text[], ${col('created_at')}::bigint[], ${col('finished_at')}::bigint[],
            ${col('loaded')}::smallint[], ${col('push_nonce')}::text[], ${col('pushed_by')}::text[], ${col('updated_at')}::bigint[])
          ON CONFLICT (id) DO NOTHING
          RETURNING id`.execute(trx);
        return result.rows.map((r) => r.id);
      },
      insertIgnore: (insert) => insert.onConflict((oc) => oc.column('id').doNothing()),
      upsert: (insert, guarded) =>
        insert.onConflict((oc) => {
          const update = oc.column('id').doUpdateSet((eb) => ({
            state: eb.ref('excluded.state'),
            run_at: eb.ref('excluded.run_at'),
            priority: eb.ref('excluded.priority'),
            attempts: eb.ref('excluded.attempts'),
            last_error: eb.ref('excluded.last_error'),
            finished_at: eb.ref('excluded.finished_at'),
            loaded: eb.ref('excluded.loaded'),
            updated_at: eb.ref('excluded.updated_at'),
          }));
          return guarded ? update.where('delayq_jobs.finished_at', 'is', null) : update;
        }),
    };
    super(dialect, () => {
      // The driver is loaded when the pool first connects: a start without this journal never loads it.
      const pool = async (): Promise<pg.Pool> => {
        const { default: pg } = await import('pg');
        return new pg.Pool({
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
      };
      return new Kysely<JournalDatabase>({ dialect: new PostgresDialect({ pool }) });
    });
  }
}
