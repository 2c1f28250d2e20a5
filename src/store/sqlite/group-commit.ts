import type Database from 'better-sqlite3';
import { DelayqError } from '../../core/errors.js';

/** How long a group commit keeps trying while another process holds the write lock. */
const COMMIT_LOCK_WAIT_MS = 5000;
const LOCK_RETRY_MS = 100;

type Result = { ok: true; value: unknown } | { ok: false; err: unknown };

/**
 * Group commit for the SQLite store. Write transitions queue here and run together in one transaction on
 * the next turn of the event loop, each inside its own savepoint (so one failing transition rolls back
 * alone). Every caller is answered after the COMMIT, so an acknowledgement still means "durable";
 * concurrent requests share the cost of one commit instead of paying one each.
 */
export class GroupCommit {
  private readonly db: Database.Database;
  /** Runs a function in a transaction (a savepoint when nested); built once, not per call. */
  private readonly atomically: (run: () => unknown) => unknown;
  private pending: { run: () => unknown; resolve: (value: never) => void; reject: (err: unknown) => void }[] = [];
  private flushScheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** When commits started to find the database locked by another process (monotonic ms). */
  private lockedSince: number | undefined;
  private closed = false;
  /** While the checkpoint worker restarts the WAL (checkpointer.ts): writes queue, none commits. */
  private held = false;

  constructor(db: Database.Database) {
    this.db = db;
    this.atomically = db.transaction((run: () => unknown) => run());
  }

  /** Queues one transition; resolves with its result once the batch it joined has committed. */
  write<T>(run: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new DelayqError('E_STORE_UNAVAILABLE', 'the SQLite store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run: () => this.atomically(run), resolve: resolve as (value: never) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Stops committing until `resume`; writes keep queueing. Called between two flushes (they are synchronous). */
  hold(): void {
    this.held = true;
  }

  resume(): void {
    if (!this.held) return;
    this.held = false;
    if (this.pending.length && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Commits what is queued now (no more lock retries), then refuses new writes. */
  close(): void {
    this.closed = true;
    this.held = false;
    if (this.pending.length) this.flush();
    clearTimeout(this.retryTimer);
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.held) return; // resume() flushes what queued meanwhile
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (!this.db.open) {
      const err = new DelayqError('E_STORE_UNAVAILABLE', 'the SQLite store is closed');
      for (const item of batch) item.reject(err);
      return;
    }
    const results: Result[] = [];
    try {
      // IMMEDIATE: take the write lock once for the whole batch. With a deferred BEGIN, a lock held by
      // another process made every transition of the batch wait out busy_timeout on its own (the event
      // loop frozen for batch × 5 s) and fail with a raw SQLITE_BUSY, answered as a 500.
      this.db
        .transaction(() => {
          for (const item of batch) {
            try {
              results.push({ ok: true, value: item.run() });
            } catch (err) {
              results.push({ ok: false, err: storageFailure(err) });
            }
          }
        })
        .immediate();
    } catch (err) {
      // Locked by another process (a backup, an operator's sqlite3 shell): try again shortly, without
      // blocking the event loop, and answer E_STORE_UNAVAILABLE once the lock has lasted too long.
      if (isBusy(err) && !this.closed) {
        this.lockedSince ??= performance.now();
        if (performance.now() - this.lockedSince < COMMIT_LOCK_WAIT_MS) {
          this.pending = [...batch, ...this.pending];
          this.flushScheduled = true;
          this.retryTimer = setTimeout(() => this.flush(), LOCK_RETRY_MS);
          return;
        }
      }
      this.lockedSince = undefined;
      for (const item of batch)
        item.reject(new DelayqError('E_STORE_UNAVAILABLE', 'SQLite commit failed', { cause: err }));
      return;
    }
    this.lockedSince = undefined;
    batch.forEach((item, i) => {
      const result = results[i]!;
      if (result.ok) item.resolve(result.value as never);
      else item.reject(result.err);
    });
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** SQLite's "the storage is unusable right now" errors become E_STORE_UNAVAILABLE; anything else is a bug. */
function storageFailure(err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|IOERR|FULL|READONLY|CANTOPEN|PROTOCOL)/.test(code)) {
    return new DelayqError('E_STORE_UNAVAILABLE', `SQLite: ${(err as Error).message}`, { cause: err });
  }
  return err;
}
