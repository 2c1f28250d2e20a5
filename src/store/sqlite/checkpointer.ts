/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit that crosses its
 * threshold: the committing thread copies the WAL back into the database file and fsyncs both, and every
 * transition of the batch waits for it. Here the store's connection never checkpoints (wal_autocheckpoint 0)
 * and a worker thread, on a connection of its own to the same file, runs a PASSIVE checkpoint every
 * CHECKPOINT_EVERY_MS: it never blocks the writer, and once it has copied the whole WAL the writer starts the
 * WAL again from its beginning. Commits are unchanged: durability is the `synchronous` mode's, as before.
 * If the worker fails or exits, the store's connection checkpoints by itself again.
 *
 * Under a steady stream of commits the WAL never restarts that way: by the time a passive checkpoint ends,
 * newer frames sit behind it, so the file grows without bound. So while the WAL is large the worker passes
 * every BUSY_CHECKPOINT_EVERY_MS, each pass copying little, and when it reports a WAL larger than
 * `truncateBytes`, the store's connection, between two of its own transactions (so no write is in flight),
 * runs a RESTART checkpoint: it copies only the frames written since the worker's last pass and makes the
 * next commit write the WAL from its beginning; `journal_size_limit` cuts the file back to the bound then.
 * A TRUNCATE checkpoint instead (the file emptied on the event loop) held the loop 35-140 ms each time,
 * the size of the file it cut; a RESTART holds it 2-6 ms (docs/performance.md, "Bulk cancel").
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

const CHECKPOINT_EVERY_MS = 200;
/** The worker's pace while the WAL holds more than an eighth of its bound: passes that each copy little. */
const BUSY_CHECKPOINT_EVERY_MS = 10;
/** The WAL size past which the store's connection starts it over (SqliteStoreOptions.walTruncateBytes). */
export const DEFAULT_WAL_TRUNCATE_BYTES = 64 * 1024 * 1024;
/** SQLite's default wal_autocheckpoint, restored when the worker is gone. */
const INLINE_CHECKPOINT_PAGES = 1000;

/** The worker's source (CommonJS, so it runs from src/ under the test runner as from dist/). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('synchronous = ' + workerData.synchronous);
db.pragma('busy_timeout = 0');
let timer;
const run = () => {
  clearTimeout(timer);
  let walPages = 0;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    walPages = result ? result.log : 0;
  } catch {
    // busy (a checkpoint of another connection, a recovery): the next pass tries again
  }
  parentPort.postMessage({ walPages });
  timer = setTimeout(run, walPages > workerData.busyPages ? workerData.busyEveryMs : workerData.everyMs);
};
timer = setTimeout(run, workerData.everyMs);
parentPort.on('message', (message) => {
  if (message === 'now') run();
  if (message === 'close') {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  }
});
`;

export class Checkpointer {
  private readonly db: Database.Database;
  private readonly worker: Worker;
  private closed = false;
  private waiting: (() => void)[] = [];

  private readonly truncatePages: number;

  constructor(db: Database.Database, path: string, synchronous: string, truncateBytes = DEFAULT_WAL_TRUNCATE_BYTES) {
    this.db = db;
    this.truncatePages = Math.max(1, Math.floor(truncateBytes / (db.pragma('page_size', { simple: true }) as number)));
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${truncateBytes}`);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        path,
        synchronous,
        everyMs: CHECKPOINT_EVERY_MS,
        busyEveryMs: BUSY_CHECKPOINT_EVERY_MS,
        busyPages: Math.ceil(this.truncatePages / 8),
      },
    });
    this.worker.unref();
    this.worker.on('message', (message: { walPages: number }) => {
      if (message.walPages > this.truncatePages) this.restart();
      this.wakeWaiting();
    });
    this.worker.on('error', () => this.inline());
    this.worker.on('exit', () => this.inline());
  }

  /** Asks for a checkpoint now and resolves when the next one has run (tests wait on it). */
  checkpointed(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.closed) return resolve();
      this.waiting.push(resolve);
      this.worker.postMessage('now');
    });
  }

  /** Ends the worker (its connection closes first, so the store's close does the last checkpoint). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref(); // an unreferenced worker's exit would not keep the process waiting for it
    this.worker.postMessage('close');
    await exited;
    this.wakeWaiting();
  }

  /** Runs on the event loop between two transactions of this connection, the only writer. */
  private restart(): void {
    if (!this.db.open || this.closed) return;
    try {
      this.db.pragma('wal_checkpoint(RESTART)');
    } catch {
      // busy (the worker's next pass, a reader of another connection): the worker's next report tries again
    }
  }

  private inline(): void {
    if (this.db.open && !this.closed) this.db.pragma(`wal_autocheckpoint = ${INLINE_CHECKPOINT_PAGES}`);
    this.closed = true;
    this.wakeWaiting();
  }

  private wakeWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}
