import { existsSync, renameSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DelayqError } from '../../core/errors.js';
import type { BindingStore, StoredBinding } from '../binding-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sink_bindings (
  topic      TEXT PRIMARY KEY,
  sink       TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sink_bindings_version (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
);
INSERT OR IGNORE INTO sink_bindings_version (id, version) VALUES (1, 0);
`;

/** Tables an earlier version wrote under their first names (bindings were called routes): renamed, rows kept. */
const FIRST_NAMES = `
ALTER TABLE sink_routes RENAME TO sink_bindings;
ALTER TABLE sink_routes_version RENAME TO sink_bindings_version;
`;

const SQL = {
  upsert: `INSERT INTO sink_bindings (topic, sink, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (topic) DO UPDATE SET sink = excluded.sink, updated_at = excluded.updated_at`,
  get: 'SELECT topic, sink, updated_at FROM sink_bindings WHERE topic = ?',
  delete: 'DELETE FROM sink_bindings WHERE topic = ?',
  list: 'SELECT topic, sink, updated_at FROM sink_bindings ORDER BY topic',
  bump: 'UPDATE sink_bindings_version SET version = version + 1 WHERE id = 1',
  version: 'SELECT version FROM sink_bindings_version WHERE id = 1',
} as const;

interface BindingRow {
  topic: string;
  sink: string;
  updated_at: number;
}

export interface SqliteBindingStoreOptions {
  /** Database file (the job store's file works: the tables are separate), or ':memory:'. */
  path: string;
  /**
   * The file an earlier version kept the bindings in: renamed to `path` (with its WAL) at open while `path`
   * does not exist yet, so an upgrade keeps every binding.
   */
  formerPath?: string;
}

/** Bindings in two small SQLite tables; every write bumps a version row in the same transaction. */
export class SqliteBindingStore<Sink> implements BindingStore<Sink> {
  private readonly options: SqliteBindingStoreOptions;
  private db: Database.Database | undefined;
  private stmt!: { [K in keyof typeof SQL]: Database.Statement };

  constructor(options: SqliteBindingStoreOptions) {
    this.options = options;
  }

  async open(): Promise<void> {
    if (this.db) return;
    const { path, formerPath } = this.options;
    if (formerPath && path !== ':memory:' && !existsSync(path) && existsSync(formerPath)) {
      for (const suffix of ['-wal', '-shm', '']) {
        if (existsSync(formerPath + suffix)) renameSync(formerPath + suffix, path + suffix);
      }
    }
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.transaction(() => {
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
      if (table.get('sink_routes') && !table.get('sink_bindings')) db.exec(FIRST_NAMES);
      db.exec(SCHEMA);
    })();
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

  async set(binding: StoredBinding<Sink>): Promise<void> {
    this.conn.transaction(() => {
      this.stmt.upsert.run(binding.topic, JSON.stringify(binding.sink), binding.updatedAt);
      this.stmt.bump.run();
    })();
  }

  async get(topic: string): Promise<StoredBinding<Sink> | null> {
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

  async list(): Promise<StoredBinding<Sink>[]> {
    return this.conn && (this.stmt.list.all() as BindingRow[]).map((row) => fromRow<Sink>(row));
  }

  async version(): Promise<string> {
    return String(this.conn && (this.stmt.version.get() as { version: number }).version);
  }
}

function fromRow<Sink>(row: BindingRow): StoredBinding<Sink> {
  return { topic: row.topic, sink: JSON.parse(row.sink) as Sink, updatedAt: row.updated_at };
}
