/**
 * The SQLite store's transitions of a reserved job (touch, finish, retry, bury, release): each changes the row
 * only when the reservation token matches, and writes its history entry in the same transaction.
 */
import type { EpochMs } from '../../core/clock.js';
import type { Job, HistoryEvent, JobState } from '../../core/job.js';
import {
  notFound,
  ok,
  repeatedOk,
  tokenMismatch,
  wrongState,
  type BuryParams,
  type FinishItem,
  type Outcome,
  type ReleaseParams,
  type RetryParams,
} from '../store.js';
import { rowToJob, valuesToJob, type JobRow, type JobValues } from './job-row.js';
import type { Statements } from './sqlite-reads.js';

/** A history row of a batch: job id, the state it entered, the attempt. */
export type HistoryItem = [id: string, state: JobState, attempt: number];
export interface RowAttempts {
  id: string;
  attempts: number;
}

export function historyOf(rows: readonly RowAttempts[], state: JobState): HistoryItem[] {
  return rows.map((row) => [row.id, state, row.attempts]);
}

/** What the store lends these functions: its prepared statements and its history writers. */
export interface FencedContext {
  readonly stmt: Statements;
  record(id: string, now: EpochMs, event: HistoryEvent, state: JobState, attempt: number, reason?: string | null): void;
  recordMany(event: HistoryEvent, items: HistoryItem[], now: EpochMs, reason?: string | null): void;
}

/** delayed at runAt, or ready at once when it is already due. */
export function toWaiting(stmt: Statements, row: JobRow, runAt: EpochMs, now: EpochMs, error: string | null): JobRow {
  const ready = runAt <= now;
  return stmt.toDelayedOrReady.get({
    id: row.id,
    state: ready ? 'ready' : 'delayed',
    runAt,
    readyAt: ready ? now : null,
    expireAt: ready && row.ttl_ms !== null ? runAt + row.ttl_ms : null,
    error,
  }) as JobRow;
}

/** Loads a reserved job and checks the token; the transition runs only when this returns a row. */
export function fencedRow(stmt: Statements, id: string, token: string): JobRow | Outcome<Job> {
  const row = stmt.getJob.get(id) as JobRow | undefined;
  if (!row) return notFound();
  if (row.state !== 'reserved') return wrongState(row.state as JobState);
  if (row.token !== token) return tokenMismatch('reserved');
  return row;
}

export function touchRow(ctx: FencedContext, row: JobRow, now: EpochMs, ttrMs: number | undefined): JobRow {
  return ctx.stmt.touch.get({ id: row.id, deadlineAt: now + (ttrMs ?? row.ttr_ms) }) as JobRow;
}

/** The update is fenced by the token; only a refused finish reads the row, to say why (or answer a repeat). */
export function finishOne(ctx: FencedContext, id: string, token: string, now: EpochMs): Outcome<Job> {
  const updated = ctx.stmt.toFinished.get({ id, token, now }) as JobRow | undefined;
  if (updated) ctx.record(id, now, 'finish', 'finished', updated.attempts);
  if (updated) return ok(rowToJob(updated));
  const row = ctx.stmt.getJob.get(id) as JobRow | undefined;
  if (row?.state === 'finished' && row.token === token) return repeatedOk(rowToJob(row));
  return !row ? notFound() : row.state !== 'reserved' ? wrongState(row.state as JobState) : tokenMismatch('reserved');
}

/**
 * Finishes a batch with one fenced statement; an item it did not finish is answered as finishOne would.
 * A batch naming a job twice runs item by item, as the outcome of each then depends on the one before.
 */
export function finishBatch(ctx: FencedContext, items: readonly FinishItem[], now: EpochMs): Outcome<Job>[] {
  const ids = new Set(items.map((item) => item.id));
  if (ids.size < items.length) return items.map(({ id, token }) => finishOne(ctx, id, token, now));
  const pairs = JSON.stringify(items.map((item) => [item.id, item.token]));
  const jobs = (ctx.stmt.finishMany.all({ items: pairs, now }) as JobValues[]).map(valuesToJob);
  ctx.recordMany('finish', historyOf(jobs, 'finished'), now);
  const finished = new Map(jobs.map((job) => [job.id, job]));
  return items.map(({ id, token }) => {
    const job = finished.get(id);
    return job ? ok(job) : finishOne(ctx, id, token, now);
  });
}

export function retryRow(ctx: FencedContext, row: JobRow, now: EpochMs, { runAt, error }: RetryParams): JobRow {
  const updated = toWaiting(ctx.stmt, row, runAt, now, error);
  ctx.record(row.id, now, 'retry', updated.state as JobState, row.attempts, error);
  return updated;
}

export function buryRow(ctx: FencedContext, row: JobRow, now: EpochMs, { error, priority }: BuryParams): JobRow {
  ctx.record(row.id, now, 'bury', 'dead', row.attempts, error);
  return ctx.stmt.toDead.get({ id: row.id, now, error, priority: priority ?? null }) as JobRow;
}

/** Gives the reservation back without counting the attempt: ready at once, or waiting until runAt. */
export function releaseRow(
  ctx: FencedContext,
  row: JobRow,
  now: EpochMs,
  { runAt, priority, reason }: ReleaseParams,
): JobRow {
  const { id } = row;
  const attempt = Math.max(row.attempts - 1, 0);
  if (runAt === undefined) {
    ctx.record(id, now, 'release', 'ready', attempt, reason ?? 'consumer gone before delivery');
    return ctx.stmt.toReleased.get({ id, priority: priority ?? null }) as JobRow;
  }
  const updated = toWaiting(ctx.stmt, row, runAt, now, null);
  const own = runAt > now ? `released until ${runAt}` : 'released';
  ctx.record(id, now, 'release', updated.state as JobState, attempt, reason ?? own);
  return ctx.stmt.giveAttemptBack.get({ id, priority: priority ?? null }) as JobRow;
}
