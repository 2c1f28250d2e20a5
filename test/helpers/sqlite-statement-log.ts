import Database from 'better-sqlite3';

/** The store's tables whose rows grow with the jobs: a full scan of one touches every row. */
export const BACKLOG_TABLES = ['jobs', 'job_history', 'job_extras', 'job_numbers'];

/** One statement a connection ran: its text, its parameters and the file of its connection. */
export interface RanStatement {
  source: string;
  params: unknown[];
  file: string;
  /** Run by `exec` (no parameters, maybe several statements) rather than a prepared statement. */
  exec: boolean;
}

type Run = (this: Database.Statement, ...params: unknown[]) => unknown;
type Exec = (this: Database.Database, source: string) => unknown;

const statementProto = (): Record<'all' | 'get' | 'iterate' | 'run', Run> => {
  const db = new Database(':memory:');
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<'all' | 'get' | 'iterate' | 'run', Run>;
  db.close();
  return proto;
};

/**
 * Every statement any better-sqlite3 connection of this process runs while `run` runs, connections opened
 * meanwhile included (the driver's prototypes are wrapped, then put back).
 */
export async function recordStatements<T>(run: () => Promise<T>): Promise<{ value: T; ran: RanStatement[] }> {
  const ran: RanStatement[] = [];
  const proto = statementProto();
  const dbProto = Database.prototype as unknown as { exec: Exec };
  const originals = { all: proto.all, get: proto.get, iterate: proto.iterate, run: proto.run };
  const originalExec = dbProto.exec;
  for (const name of ['all', 'get', 'iterate', 'run'] as const) {
    const original = originals[name];
    proto[name] = function (this: Database.Statement, ...params: unknown[]) {
      ran.push({ source: this.source, params, file: this.database.name, exec: false });
      return original.apply(this, params);
    };
  }
  dbProto.exec = function (this: Database.Database, source: string) {
    ran.push({ source, params: [], file: this.name, exec: true });
    return originalExec.call(this, source);
  };
  try {
    return { value: await run(), ran };
  } finally {
    Object.assign(proto, originals);
    dbProto.exec = originalExec;
  }
}

/** A statement's plan on `db`, one detail per step; none for a statement SQLite does not plan (BEGIN, SAVEPOINT). */
export function planOf(db: Database.Database, { source, params }: Pick<RanStatement, 'source' | 'params'>): string[] {
  let plan: Database.Statement;
  try {
    plan = db.prepare(`EXPLAIN QUERY PLAN ${source}`);
  } catch {
    return [];
  }
  return (statementProto().all.apply(plan, params) as { detail: string }[]).map((r) => r.detail);
}

/** The backlog table a plan step walks whole (`SCAN jobs`, with or without an index), if any. */
export function scannedBacklogTable(detail: string): string | undefined {
  const scanned = /^SCAN (\w+)/.exec(detail)?.[1];
  return scanned && BACKLOG_TABLES.includes(scanned) ? scanned : undefined;
}

/** Rows of a table (what a full scan of it touches). */
export const rowsOf = (db: Database.Database, table: string): number =>
  (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
