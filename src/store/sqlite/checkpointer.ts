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
 * `truncateBytes`, the store holds its commits (group-commit.ts: writes queue, the event loop runs on) and
 * the worker runs a RESTART checkpoint, no write in flight: it copies the frames written since its last pass
 * and makes the next commit write the WAL from its beginning; `journal_size_limit` cuts the file back to the
 * bound then. The RESTART ran on the event loop before: 15-73 ms each time during a bulk cancel or a purge
 * at 1M (its copy and the database file's fsync), every request waiting; now only the writes wait. A
 * TRUNCATE, earlier still, 35-140 ms (docs/performance.md, "Bulk cancel").
 *
 * A checkpoint fsyncs the database file only when it has copied the WAL to its end, which a pass under a
 * steady stream of commits never does: the RESTART's fsync then wrote back every page the passes had
 * copied since the last one, 50-80 ms of the hold at 1-2M jobs during a bulk cancel (strace: the database
 * file's fsync; the copy itself a few ms). So before the hold the worker passes and fsyncs the database
 * file itself, commits running, in rounds until one is short, and the RESTART's fsync under the hold finds
 * little to write.
 * The descriptor it fsyncs is opened here and closed only after the store's own connection (`release`):
 * closing any descriptor of a file drops every POSIX lock the process holds on it, SQLite's included.
 */
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

const CHECKPOINT_EVERY_MS = 200;
/** The worker's pace while the WAL holds more than an eighth of its bound: passes that each copy little. */
const BUSY_CHECKPOINT_EVERY_MS = 10;
/** The WAL size past which the worker's RESTART starts it over (SqliteStoreOptions.walTruncateBytes). */
export const DEFAULT_WAL_TRUNCATE_BYTES = 64 * 1024 * 1024;
/** How long the worker's RESTART waits for a reader of the store's connection (SQLite's busy wait, its thread). */
const RESTART_WAIT_MS = 100;
/** The most the store holds its commits for a RESTART, should the worker not answer. */
const RESTART_HOLD_MAX_MS = 2000;
/** Rounds of copy and fsync before a hold at most, and a round short enough to stop at. */
const PREPARE_ROUNDS_MAX = 4;
const PREPARE_SHORT_MS = 5;
/** SQLite's default wal_autocheckpoint, restored when the worker is gone. */
const INLINE_CHECKPOINT_PAGES = 1000;

/** The worker's source (CommonJS, so it runs from src/ under the test runner as from dist/). */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { fsyncSync } = require('node:fs');
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
  if (message === 'prepare') {
    // Commits go on meanwhile. The timer's pass waits until the RESTART has run: the store will be held then.
    clearTimeout(timer);
    // Each round copies and writes back what was committed during the one before: a shorter stretch each
    // time while copying outruns the commits.
    for (let round = 0; round < workerData.prepareRoundsMax; round++) {
      const started = performance.now();
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
        fsyncSync(workerData.dbFd);
      } catch {
        break; // the RESTART under the hold does it all, as before
      }
      if (performance.now() - started < workerData.prepareShortMs) break;
    }
    parentPort.postMessage({ prepared: true });
  }
  if (message === 'restart') {
    // The store holds its commits until this answers: no writer, so no lock to wait for but a reader's.
    let walPages = 0;
    try {
      db.pragma('busy_timeout = ' + workerData.restartWaitMs);
      const [result] = db.pragma('wal_checkpoint(RESTART)');
      walPages = result ? result.log : 0;
    } catch {
      // busy: the store resumes; a later report asks again
    } finally {
      db.pragma('busy_timeout = 0');
    }
    parentPort.postMessage({ walPages, restarted: true });
    timer = setTimeout(run, workerData.busyEveryMs);
  }
  if (message === 'close') {
    clearTimeout(timer);
    db.close();
    parentPort.close();
  }
});
`;

/** What the checkpointer needs of the store's writes: to hold them while the worker's RESTART runs. */
export interface CommitHold {
  hold(): void;
  resume(): void;
}

export class Checkpointer {
  private readonly db: Database.Database;
  private readonly worker: Worker;
  private readonly commits: CommitHold;
  private closed = false;
  private waiting: (() => void)[] = [];
  /** While the worker's RESTART runs: the timer that resumes the commits should it not answer. */
  private restarting: NodeJS.Timeout | undefined;

  private readonly truncatePages: number;
  /** The database file's descriptor the worker fsyncs before a hold; closed by `release`. */
  private readonly dbFd: number;
  /** While the worker's pass and fsync before a RESTART run (commits going on). */
  private preparing = false;

  constructor(
    db: Database.Database,
    path: string,
    synchronous: string,
    commits: CommitHold,
    truncateBytes = DEFAULT_WAL_TRUNCATE_BYTES,
  ) {
    this.db = db;
    this.commits = commits;
    this.truncatePages = Math.max(1, Math.floor(truncateBytes / (db.pragma('page_size', { simple: true }) as number)));
    this.dbFd = openSync(path, 'r');
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
        restartWaitMs: RESTART_WAIT_MS,
        dbFd: this.dbFd,
        prepareRoundsMax: PREPARE_ROUNDS_MAX,
        prepareShortMs: PREPARE_SHORT_MS,
      },
    });
    this.worker.unref();
    this.worker.on('message', (message: { walPages?: number; restarted?: boolean; prepared?: boolean }) => {
      if (message.restarted) this.resume();
      else if (message.prepared) this.restart();
      else if ((message.walPages ?? 0) > this.truncatePages) this.prepare();
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
    this.resume();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.ref(); // an unreferenced worker's exit would not keep the process waiting for it
    this.worker.postMessage('close');
    await exited;
    this.wakeWaiting();
  }

  /** Closes the descriptor the worker fsynced: after the store's connection has closed (see above). */
  release(): void {
    closeSync(this.dbFd);
  }

  /** Has the worker copy and fsync what it can with commits going on; `restart` follows when it has. */
  private prepare(): void {
    if (!this.db.open || this.closed || this.preparing || this.restarting) return;
    this.preparing = true;
    this.worker.postMessage('prepare');
  }

  /** Holds the commits (flush runs synchronously, so none is in flight now) and has the worker restart the WAL. */
  private restart(): void {
    this.preparing = false;
    if (!this.db.open || this.closed || this.restarting) return;
    this.commits.hold();
    this.restarting = setTimeout(() => this.resume(), RESTART_HOLD_MAX_MS);
    this.worker.postMessage('restart');
  }

  private resume(): void {
    if (!this.restarting) return;
    clearTimeout(this.restarting);
    this.restarting = undefined;
    this.commits.resume();
  }

  private inline(): void {
    this.resume();
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
