import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { DelayqError } from '../../core/errors.js';

/** Who holds an SQLite store's file, as the holder wrote it down. */
interface Holder {
  pid: number;
  host: string;
  node: string;
  since: string;
}

/**
 * One process owns an SQLite store's file: its group commit, checkpoints and timers assume no other writer.
 * The owner holds a write lock on a small companion database (`<file>-owner`) for as long as the store is
 * open: SQLite's own file lock, which the operating system drops when the process ends, also by kill -9, so a
 * restart after a crash opens at once. A second opener (another process, or a second store in this one) is
 * refused with the path and the holder the owner wrote down when it took the lock.
 */
export class SqliteOwnerLock {
  private readonly db: Database.Database;

  private constructor(db: Database.Database) {
    this.db = db;
  }

  static acquire(path: string, nodeId: string): SqliteOwnerLock {
    const lockPath = `${path}-owner`;
    const db = new Database(lockPath);
    try {
      // No busy wait: a held lock is an answer, not a delay. The file keeps SQLite's default rollback journal,
      // so a refused opener can still read the holder's row while the lock is held.
      db.pragma('busy_timeout = 0');
      const holder: Holder = { pid: process.pid, host: hostname(), node: nodeId, since: new Date().toISOString() };
      // Write down who holds it (committed, so a refused opener can read it), then take the lock for good.
      lockOrRefuse(db, path, lockPath);
      db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER, host TEXT, node TEXT, since TEXT)');
      db.prepare('DELETE FROM owner').run();
      db.prepare('INSERT INTO owner (pid, host, node, since) VALUES (@pid, @host, @node, @since)').run(holder);
      db.exec('COMMIT');
      lockOrRefuse(db, path, lockPath);
      return new SqliteOwnerLock(db);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  release(): void {
    if (!this.db.open) return;
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.db.close();
  }
}

function lockOrRefuse(db: Database.Database, path: string, lockPath: string): void {
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    let holder: Holder | undefined;
    try {
      holder = db.prepare('SELECT pid, host, node, since FROM owner').get() as Holder | undefined;
    } catch {
      // the holder has not written itself down yet
    }
    const who = holder
      ? `delayq process ${holder.pid} on ${holder.host} (node ${holder.node}, since ${holder.since})`
      : 'another delayq process';
    throw new DelayqError(
      'E_CONFIG',
      `sqlite.path: ${path} is already open in ${who}; one process owns an SQLite file (its lock: ${lockPath}). ` +
        'Stop that process, or give this one another file (DELAYQ_SQLITE_PATH).',
      { field: 'sqlite.path', details: { path, holder: holder ?? null } },
    );
  }
}
