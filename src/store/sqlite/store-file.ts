import Database from 'better-sqlite3';
import { DEFAULTS } from '../../config.js';
import { migrate } from './migrate.js';
import { SqliteOwnerLock } from './owner-lock.js';
import type { SqliteStoreOptions } from './sqlite-store-options.js';

/** SQLite's own busy wait (it blocks the event loop, so keep it short). */
const BUSY_TIMEOUT_MS = 50;

/** The store's file, open: its connection and, for a file on disk, the lock that makes this process its owner. */
export interface StoreFile {
  db: Database.Database;
  owner: SqliteOwnerLock | undefined;
}

/** Takes ownership of the file (owner-lock.ts), opens it in WAL mode and brings its schema up to date. */
export function openStoreFile(options: SqliteStoreOptions): StoreFile {
  const owner = options.path === ':memory:' ? undefined : SqliteOwnerLock.acquire(options.path, options.nodeId);
  try {
    const db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
    // Short: better-sqlite3 is synchronous, so SQLite's busy wait freezes the event loop. Commits wait for a
    // lock held by another process asynchronously instead (group-commit.ts).
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('foreign_keys = OFF');
    // SQLite's default cache is 2 MiB: past a few hundred thousand jobs every push then read its index pages
    // back from the file. Negative: a size in KiB rather than pages.
    db.pragma(`cache_size = ${-1024 * (options.cacheMb ?? DEFAULTS.sqlite.cacheMb)}`);
    // A statement whose triggers write another table (topic_counts, migration 048) keeps a statement journal
    // for its own rollback: in a temporary file by default, which cost a reserve and finish 30-60 % more.
    db.pragma('temp_store = MEMORY');
    migrate(db);
    return { db, owner };
  } catch (err) {
    owner?.release();
    throw err;
  }
}
