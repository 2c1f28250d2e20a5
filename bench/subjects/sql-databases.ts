// A private PostgreSQL schema or MariaDB database per benchmark run (random name), dropped afterwards:
// the SQL servers are shared with other people's tests.
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

export interface SqlTarget {
  dialect: 'postgres' | 'mysql';
  /** postgres://…/db, or mysql://root@host:port (no database). */
  url: string;
}

export const POSTGRES: SqlTarget = {
  dialect: 'postgres',
  url: process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
};
export const MARIADB: SqlTarget = {
  dialect: 'mysql',
  url: process.env['BENCH_MYSQL_URL'] ?? 'mysql://root@127.0.0.1:3306',
};

async function admin<T>(target: SqlTarget, fn: (run: (sql: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  if (target.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: target.url });
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`PostgreSQL is required at ${target.url} for the journal benchmark: ${(err as Error).message}`);
    }
    try {
      return await fn((sql) => client.query(sql));
    } finally {
      await client.end();
    }
  }
  let conn;
  try {
    conn = await createConnection({ uri: target.url });
  } catch (err) {
    throw new Error(`MariaDB/MySQL is required at ${target.url} for the journal benchmark: ${(err as Error).message}`);
  }
  try {
    return await fn((sql) => conn.query(sql));
  } finally {
    await conn.end();
  }
}

export async function newSqlDatabase(target: SqlTarget): Promise<string> {
  const name = `dq_bench_${randomBytes(5).toString('hex')}`;
  await admin(target, (run) =>
    run(target.dialect === 'postgres' ? `CREATE SCHEMA ${name}` : `CREATE DATABASE ${name} CHARACTER SET utf8mb4`),
  );
  return name;
}

export async function dropSqlDatabase(target: SqlTarget, name: string): Promise<void> {
  await admin(target, (run) =>
    run(target.dialect === 'postgres' ? `DROP SCHEMA IF EXISTS ${name} CASCADE` : `DROP DATABASE IF EXISTS ${name}`),
  );
}
