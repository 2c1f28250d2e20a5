import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createJournaledBackend, nodeIdOf } from '../../src/create-service.js';
import type { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { createRuntime } from '../../src/runtime.js';
import { buildApp } from '../../src/server/app.js';
import {
  MYSQL_URL,
  mysqlJournalDatabase,
  PG_URL,
  postgresJournalDatabase,
  type JournalDatabase,
} from '../helpers/journal-databases.js';

/** Enough rows that a statement walking them shows: far more than a batch, a counter row or an index head. */
const ROWS = 50_000;
/** Reconciliation's batch (and so the rows its pass reads): small, so its page does not hide a walk of the rest. */
const BATCH = 10;
/** The most the journal's statements may read in a start, first loader round and stats. */
const MOST_TOUCHED = 500;
/** The tables whose rows grow with the jobs. */
const BACKLOG = /\bdelayq_(jobs|job_history)\b/;
const BACKLOG_TABLES = ['delayq_jobs', 'delayq_job_history'];
const RETRY = '{"maxAttempts":3,"backoff":{"type":"fixed","delayMs":1000}}';

interface Ran {
  text: string;
  values: unknown[];
}
/** What one dialect's statements cost: whether a plan walks a backlog table, and the rows it read. */
interface Planned {
  walks: boolean;
  read: number;
}

// A journaled node's start on a large journal: opening (migrations check, the inner store's marker), the loader's
// first round (claiming due journal-only rows, a reconciliation pass and the reserved rows' look, the inner purge)
// and /v1/stats read a batch or a counter row each, never every job. Every statement runs again under EXPLAIN
// (ANALYZE for the reads, which change nothing).
const dialects = [
  {
    name: 'PostgreSQL',
    make: postgresJournalDatabase,
    journal: (db: JournalDatabase) => ({ kind: 'postgres', url: PG_URL, schema: db.name }),
    rows: (now: number) => `SELECT 'far-' || lpad(i::text, 9, '0'), 'topic-' || (i % 4), '{}',
        CASE WHEN i % 10 = 0 THEN 'finished' ELSE 'delayed' END, ${now} + 2592000000 + i, 0, 30000, '${RETRY}',
        ${now}, CASE WHEN i % 10 = 0 THEN ${now} END, CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, ${now}
      FROM generate_series(0, ${ROWS - 1}) i`,
    record: recordPostgres,
    plan: planPostgres,
  },
  {
    name: 'MariaDB',
    make: mysqlJournalDatabase,
    journal: (db: JournalDatabase) => ({ kind: 'mysql', url: `${MYSQL_URL}/${db.name}` }),
    rows: (now: number) => `SELECT CONCAT('far-', LPAD(seq, 9, '0')), CONCAT('topic-', seq % 4), '{}',
        CASE WHEN seq % 10 = 0 THEN 'finished' ELSE 'delayed' END, ${now} + 2592000000 + seq, 0, 30000, '${RETRY}',
        ${now}, CASE WHEN seq % 10 = 0 THEN ${now} END, CASE WHEN seq % 10 = 0 THEN 1 ELSE 0 END, ${now}
      FROM seq_0_to_${ROWS - 1}`,
    record: recordMysql,
    plan: planMysql,
  },
] as const;

describe.each(dialects)('the journal at start ($name)', (dialect) => {
  let db: JournalDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'delayq-journal-start-'));
  beforeAll(async () => {
    db = await dialect.make();
  });
  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`opens on ${ROWS} journal rows and runs a first loader round and stats, reading a batch`, async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        sqlite: { path: join(dir, 'inner.db') },
        journal: { ...dialect.journal(db), reconcileBatchSize: BATCH },
      },
    });
    // A first start creates the tables and the inner store's marker; the rows are written behind it (no ANALYZE
    // after: a start meets statistics older than its rows).
    const first = createRuntime(config);
    await first.start();
    await first.close();
    await db.query(`INSERT INTO delayq_jobs (id, topic, body, state, run_at, priority, ttr_ms, retry, created_at,
        finished_at, loaded, updated_at) ${dialect.rows(Date.now())}`);

    const { value: stats, ran } = await dialect.record(() => startOnce(config));
    expect(stats.topics.reduce((n, t) => n + t.counts.delayed, 0)).toBe(ROWS - ROWS / 10);

    const walks = new Set<string>();
    let touched = 0;
    for (const statement of ran.filter((s) => BACKLOG.test(s.text))) {
      const { walks: walked, read } = await dialect.plan(db, statement);
      if (walked) walks.add(statement.text);
      touched += read;
    }
    expect([...walks]).toEqual([]);
    expect(touched).toBeLessThanOrEqual(MOST_TOUCHED);
  });
});

/** A start, the loader's first round, /v1/stats; answers the stats. */
async function startOnce(config: Readonly<Config>): Promise<{ topics: { counts: { delayed: number } }[] }> {
  const backend = createJournaledBackend(config, nodeIdOf(config));
  const firstRound = afterFirstRound(backend.jobs as JournaledStore);
  const runtime = createRuntime(config, { backend });
  await runtime.start();
  const app = await buildApp(runtime.service, config, { metrics: runtime.metrics });
  try {
    await firstRound;
    return (await app.inject({ url: '/v1/stats' })).json();
  } finally {
    await app.close();
    await runtime.close();
  }
}

/** Resolves once the loader's first round has ended: its last step, the inner store's purge, has answered. */
function afterFirstRound(store: JournaledStore): Promise<void> {
  const purgeInner = store.purgeInner.bind(store);
  return new Promise((resolve) => {
    store.purgeInner = async (...args) => {
      const answer = await purgeInner(...args);
      resolve();
      return answer;
    };
  });
}

const isRead = (text: string): boolean => /^\s*(select|with)\b/i.test(text) && !/\bfor update\b/i.test(text);

/** Every query of the pg driver while `run` runs. */
async function recordPostgres<T>(run: () => Promise<T>): Promise<{ value: T; ran: Ran[] }> {
  const ran: Ran[] = [];
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const [q, v] = args as [string | { text?: string; values?: unknown[] }, unknown];
    const text = typeof q === 'string' ? q : q?.text;
    const values = typeof q === 'string' ? v : q?.values;
    if (text) ran.push({ text, values: Array.isArray(values) ? values : [] });
    return query.apply(this, args);
  };
  try {
    return { value: await run(), ran };
  } finally {
    (pg.Client.prototype as { query: unknown }).query = query;
  }
}

interface PgPlanNode {
  'Relation Name'?: string;
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PgPlanNode[];
}

/** Rows of a backlog table a plan's nodes read (returned or filtered out), from EXPLAIN ANALYZE. */
function pgRowsRead(node: PgPlanNode): number {
  const loops = node['Actual Loops'] ?? 1;
  const own = BACKLOG_TABLES.includes(node['Relation Name'] ?? '')
    ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * loops
    : 0;
  return own + (node.Plans ?? []).reduce((n, child) => n + pgRowsRead(child), 0);
}

async function planPostgres(db: JournalDatabase, { text, values }: Ran): Promise<Planned> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`SET search_path = ${db.name}`);
    const explain = isRead(text) ? 'EXPLAIN (ANALYZE, FORMAT JSON)' : 'EXPLAIN (FORMAT JSON)';
    const { rows } = await admin.query<{ 'QUERY PLAN': { Plan: PgPlanNode }[] }>(`${explain} ${text}`, values);
    const plan = rows[0]!['QUERY PLAN'];
    return {
      walks: /"Node Type":"Seq Scan","[^}]*"Relation Name":"delayq_(jobs|job_history)"/.test(JSON.stringify(plan)),
      read: isRead(text) ? pgRowsRead(plan[0]!.Plan) : 1,
    };
  } finally {
    await admin.end();
  }
}

/** Every query of the mysql2 driver (Kysely's and the batch writer's) while `run` runs. */
async function recordMysql<T>(run: () => Promise<T>): Promise<{ value: T; ran: Ran[] }> {
  const ran: Ran[] = [];
  const proto = mysql.Connection.prototype as unknown as Record<'query' | 'execute', (...args: unknown[]) => unknown>;
  const originals = { query: proto.query, execute: proto.execute };
  for (const name of ['query', 'execute'] as const) {
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const [q, v] = args as [string | { sql?: string; values?: unknown[] }, unknown];
      const text = typeof q === 'string' ? q : q?.sql;
      const values = typeof q === 'string' ? v : q?.values;
      if (text) ran.push({ text, values: Array.isArray(values) ? values : [] });
      return originals[name].apply(this, args);
    };
  }
  try {
    return { value: await run(), ran };
  } finally {
    Object.assign(proto, originals);
  }
}

/** Each table a MariaDB plan reads: how, and the rows it read (ANALYZE's r_rows per loop). */
function mysqlTables(node: unknown, out: { table: string; access: string; read: number }[] = []) {
  if (Array.isArray(node)) node.forEach((n) => mysqlTables(n, out));
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o['table_name'] === 'string')
      out.push({
        table: o['table_name'],
        access: String(o['access_type']),
        read: Number(o['r_rows'] ?? 0) * Number(o['r_loops'] ?? 1),
      });
    Object.values(o).forEach((n) => mysqlTables(n, out));
  }
  return out;
}

async function planMysql(db: JournalDatabase, { text, values }: Ran): Promise<Planned> {
  const admin = await createConnection({ uri: `${MYSQL_URL}/${db.name}` });
  try {
    const explain = isRead(text) ? 'ANALYZE FORMAT=JSON' : 'EXPLAIN FORMAT=JSON';
    const [rows] = await admin.query(`${explain} ${text}`, values);
    const json = Object.values((rows as Record<string, string>[])[0]!)[0]!;
    const tables = mysqlTables(JSON.parse(json)).filter((t) => BACKLOG_TABLES.includes(t.table));
    return {
      // ALL: the table's rows one by one; index: a whole index in its order.
      walks: tables.some((t) => t.access === 'ALL' || t.access === 'index'),
      read: isRead(text) ? tables.reduce((n, t) => n + t.read, 0) : 1,
    };
  } finally {
    await admin.end();
  }
}
