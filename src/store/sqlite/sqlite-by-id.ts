/** The SQLite store's protocol transitions and reads: reserve one job by id, and the first job of a state. */
import type Database from 'better-sqlite3';
import type { EpochMs } from '../../core/clock.js';
import { newToken } from '../../core/ids.js';
import type { Job, HistoryEvent, JobState, Reservation } from '../../core/job.js';
import type { PeekState } from '../peek-order.js';
import {
  notFound,
  ok,
  tokenMismatch,
  wrongState,
  type KeptReservation,
  type Outcome,
  type ReserveOptions,
} from '../store.js';
import { rowToJob, type JobRow } from './job-row.js';
import type { SqliteAccess } from './sqlite-extras.js';

/** What the store lends these functions: its connection, group commit and history writer. */
export interface SqliteByIdAccess extends SqliteAccess {
  record(id: string, now: EpochMs, event: HistoryEvent, state: JobState, attempt: number, reason?: string | null): void;
}

const PEEK_SQL: Record<PeekState, string> = {
  ready: `SELECT * FROM jobs WHERE state = 'ready' AND topic = ? ORDER BY priority, run_at, created_at, id LIMIT 1`,
  delayed: `SELECT * FROM jobs WHERE state = 'delayed' AND topic = ? ORDER BY run_at, id LIMIT 1`,
  dead: `SELECT * FROM jobs WHERE state = 'dead' AND topic = ? ORDER BY finished_at, id LIMIT 1`,
};

// A delayed job is made due now, a dead one redriven (attempts reset, due now), then reserved.
const TO_RESERVED = `UPDATE jobs SET state = 'reserved',
    attempts = CASE WHEN state = 'dead' THEN 1 ELSE attempts + 1 END,
    run_at = CASE WHEN state = 'dead' OR run_at > @now THEN @now ELSE run_at END,
    ready_at = CASE WHEN state = 'ready' THEN ready_at ELSE @now END,
    token = @token, reserved_at = @now, deadline_at = @now + COALESCE(@ttrMs, ttr_ms),
    expire_at = NULL, finished_at = NULL
  WHERE id = @id RETURNING *`;

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepared(db: Database.Database, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) cache.set(sql, (statement = db.prepare(sql)));
  return statement;
}

export function sqliteReserveJob(
  access: SqliteByIdAccess,
  id: string,
  now: EpochMs,
  options: ReserveOptions = {},
): Promise<Outcome<Reservation>> {
  return access.write((): Outcome<Reservation> => {
    const db = access.conn();
    const row = prepared(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    if (!row) return notFound();
    const state = row.state as JobState;
    if (state !== 'ready' && state !== 'delayed' && state !== 'dead') return wrongState(state);
    // A ready or delayed job whose ttl ran out is the timer's to expire, never handed out.
    if (state !== 'dead' && row.ttl_ms !== null && Math.min(row.run_at, now) + row.ttl_ms <= now)
      return wrongState(state);
    if (state === 'delayed') access.record(id, now, 'promote', 'ready', row.attempts);
    if (state === 'dead') access.record(id, now, 'redrive', 'ready', 0);
    const token = newToken();
    const updated = prepared(db, TO_RESERVED).get({ id, token, now, ttrMs: options.ttrMs ?? null }) as JobRow;
    access.record(id, now, 'reserve', 'reserved', updated.attempts);
    return ok({ job: rowToJob(updated), token, deadlineAt: updated.deadline_at! });
  });
}

const TO_KEPT_RESERVATION = `UPDATE jobs SET state = 'reserved', attempts = @attempts, run_at = @runAt,
    ready_at = COALESCE(ready_at, @reservedAt), token = @token, reserved_at = @reservedAt,
    deadline_at = @deadlineAt, expire_at = NULL
  WHERE id = @id RETURNING *`;

/** Store.restoreReservation: a delayed or ready job, or one reserved under `replacing`, put under the kept reservation. */
export function sqliteRestoreReservation(
  access: SqliteByIdAccess,
  id: string,
  kept: KeptReservation,
  now: EpochMs,
  replacing?: string,
): Promise<Outcome<Job>> {
  return access.write((): Outcome<Job> => {
    const db = access.conn();
    const row = prepared(db, 'SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
    if (!row) return notFound();
    const state = row.state as JobState;
    if (state !== 'ready' && state !== 'delayed' && state !== 'reserved') return wrongState(state);
    if (state === 'reserved' && row.token === kept.token) return ok(rowToJob(row));
    if (state === 'reserved' && row.token !== replacing) return tokenMismatch('reserved');
    const updated = prepared(db, TO_KEPT_RESERVATION).get({ id, ...kept }) as JobRow;
    access.record(id, now, 'restore', 'reserved', kept.attempts, 'reservation restored from the journal');
    return ok(rowToJob(updated));
  });
}

const COUNT_READY_SQL = `SELECT COUNT(*) AS n FROM jobs WHERE state = 'ready' AND topic = ? AND priority < ?`;

/** The ready jobs of a topic below a priority: a range of the ready-order index (topic, priority, …). */
export async function sqliteCountReady(access: SqliteAccess, topic: string, belowPriority: number): Promise<number> {
  return (prepared(access.conn(), COUNT_READY_SQL).get(topic, belowPriority) as { n: number }).n;
}

export async function sqlitePeekNext(access: SqliteAccess, topic: string, state: PeekState): Promise<Job | null> {
  const row = prepared(access.conn(), PEEK_SQL[state]).get(topic) as JobRow | undefined;
  return row ? rowToJob(row) : null;
}
