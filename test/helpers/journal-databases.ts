import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import type { Journal } from '../../src/journal/journal.js';
import { MysqlJournal } from '../../src/journal/sql/mysql/mysql-journal.js';
import { PostgresJournal } from '../../src/journal/sql/postgres/postgres-journal.js';

export const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const MYSQL_URL = 'mysql://root@127.0.0.1:3306';

/** A private place for one test file's journal: a PostgreSQL schema or a MariaDB database, with a random suffix. */
export interface JournalDatabase {
  readonly dialect: 'postgres' | 'mysql';
  readonly name: string;
  /** A new (unopened) journal on this schema/database. */
  journal(options?: { maxConnections?: number }): Journal;
  /** Empties the journal tables (between tests of one file). */
  truncate(): Promise<void>;
  /** Runs a query as an administrator (for assertions that look at the tables). */
  query<T = Record<string, unknown>>(text: string): Promise<T[]>;
  drop(): Promise<void>;
}

const suffix = () => randomBytes(5).toString('hex');

export async function postgresJournalDatabase(): Promise<JournalDatabase> {
  const name = `dq_journal_${suffix()}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `PostgreSQL is required on 127.0.0.1:5432 (user postgres, db test) for the journal tests: ${(err as Error).message}`,
    );
  }
  await admin.query(`CREATE SCHEMA ${name}`);
  return {
    dialect: 'postgres',
    name,
    journal: (o = {}) =>
      new PostgresJournal({ connectionString: PG_URL, schema: name, maxConnections: o.maxConnections }),
    async truncate() {
      const { rows } = await admin.query(`SELECT to_regclass('${name}.delayq_jobs') AS t`);
      if (rows[0].t)
        await admin.query(
          `TRUNCATE ${name}.delayq_jobs, ${name}.delayq_job_history, ${name}.delayq_meta, ${name}.delayq_schedules`,
        );
    },
    async query<T>(text: string) {
      await admin.query(`SET search_path = ${name}`);
      return (await admin.query(text)).rows as T[];
    },
    async drop() {
      await admin.query(`DROP SCHEMA ${name} CASCADE`);
      await admin.end();
    },
  };
}

export async function mysqlJournalDatabase(): Promise<JournalDatabase> {
  const name = `dq_journal_${suffix()}`;
  let admin;
  try {
    admin = await createConnection({ uri: MYSQL_URL, multipleStatements: true });
  } catch (err) {
    throw new Error(
      `MariaDB/MySQL is required on 127.0.0.1:3306 (root, no password) for the journal tests: ${(err as Error).message}`,
    );
  }
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  return {
    dialect: 'mysql',
    name,
    journal: (o = {}) => new MysqlJournal({ uri: `${MYSQL_URL}/${name}`, maxConnections: o.maxConnections }),
    async truncate() {
      const [rows] = await admin.query(
        `SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = '${name}' AND table_name = 'delayq_jobs'`,
      );
      if ((rows as { n: number }[])[0]!.n > 0) {
        await admin.query(
          `TRUNCATE ${name}.delayq_jobs; TRUNCATE ${name}.delayq_job_history; TRUNCATE ${name}.delayq_meta; TRUNCATE ${name}.delayq_schedules; TRUNCATE ${name}.delayq_journal_counts; TRUNCATE ${name}.delayq_journal_due_hours`,
        );
      }
    },
    async query<T>(text: string) {
      await admin.query(`USE ${name}`);
      const [rows] = await admin.query(text);
      return rows as T[];
    },
    async drop() {
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    },
  };
}

export const JOURNAL_DATABASES = [
  ['postgres', postgresJournalDatabase],
  ['mysql', mysqlJournalDatabase],
] as const;
