import Database from 'better-sqlite3';
import { DelayqError } from '../core/errors.js';
import type { BindingStore, DeliveryBinding } from './binding-store.js';
import type { SinkConfig } from './sink-config.js';

// The tables keep their first names (sink_routes…): files written by earlier versions stay readable.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS sink_routes (
  topic      TEXT PRIMARY KEY,
  sink       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sink_routes_version (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
);
INSERT OR IGNORE INTO sink_routes_version (id, version) VALUES (1, 0);
`;

const SQL = {
  upsert: `INSERT INTO sink_routes (topic, sink, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (topic) DO UPDATE SET sink = excluded.sink, updated_at = excluded.updated_at`,
  get: 'SELECT topic, sink, updated_at FROM sink_routes WHERE topic = ?',
  delete: 'DELETE FROM sink_routes WHERE topic = ?',
  list: 'SELECT topic, sink, updated_at FROM sink_routes ORDER BY topic',
  bump: 'UPDATE sink_routes_version SET version = version + 1 WHERE id = 1',
  version: 'SELECT version FROM sink_routes_version WHERE id = 1',
} as const;

interface BindingRow {
  topic: string;
  sink: string;
  updated_at: number;
}

export interface SqliteBindingStoreOptions {
  /** Database file (the job store's file works: the tables are separate), or ':memory:'. */
  path: string;
}

/** Bindings in two small SQLite tables; every write bumps a version row in the same transaction. */
export class SqliteBindingStore implements BindingStore {
  private readonly options: SqliteBindingStoreOptions;
  private db: Database.Database | undefined;
  private stmt!: { [K in keyof typeof SQL]: Database.Statement };

  constructor(options: SqliteBindingStoreOptions) {
    this.options = options;
  }

  async open(): Promise<void> {
    if (this.db) return;
    const db = new Database(this.options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, db.prepare(sql)])) as typeof this.stmt;
    this.db = db;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  private get conn(): Database.Database {
    if (!this.db) throw new DelayqError('E_STORE_UNAVAILABLE', 'the SQLite binding store is not open');
    return this.db;
  }

  async set(binding: DeliveryBinding): Promise<void> {
    this.conn.transaction(() => {
      this.stmt.upsert.run(binding.topic, JSON.stringify(binding.sink), binding.updatedAt);
      this.stmt.bump.run();
    })();
  }

  async get(topic: string): Promise<DeliveryBinding | null> {
    const row = this.conn && (this.stmt.get.get(topic) as BindingRow | undefined);
    return row ? fromRow(row) : null;
  }

  async delete(topic: string): Promise<boolean> {
    return this.conn.transaction(() => {
      const removed = this.stmt.delete.run(topic).changes > 0;
      if (removed) this.stmt.bump.run();
      return removed;
    })();
  }

  async list(): Promise<DeliveryBinding[]> {
    return this.conn && (this.stmt.list.all() as BindingRow[]).map(fromRow);
  }

  async version(): Promise<string> {
    return String(this.conn && (this.stmt.version.get() as { version: number }).version);
  }
}

function fromRow(row: BindingRow): DeliveryBinding {
  return { topic: row.topic, sink: JSON.parse(row.sink) as SinkConfig, updatedAt: row.updated_at };
}
