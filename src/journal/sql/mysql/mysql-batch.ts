import { randomBytes } from 'node:crypto';
import type { Pool, PoolConnection } from 'mysql2';
import type { RowBatch } from '../batch.js';
import type { HistoryRow, JobRow } from '../schema.js';

const JOB_COLUMNS = [
  'id',
  'topic',
  'tag',
  'biz_key',
  'body',
  'state',
  'run_at',
  'priority',
  'ttr_ms',
  'ttl_ms',
  'retry',
  'attempts',
  'last_error',
  'created_at',
  'finished_at',
  'loaded',
  'push_nonce',
  'pushed_by',
  'updated_at',
  'token',
  'reserved_at',
  'deadline_at',
  'job_group',
] as const satisfies readonly (keyof JobRow)[];

const HISTORY_COLUMNS = [
  'job_id',
  'at',
  'event',
  'state',
  'attempt',
  'node',
  'reason',
] as const satisfies readonly (keyof HistoryRow)[];

/** Columns a transition may change; the rest of a row is fixed at its push. */
const UPDATED = [
  'state',
  'run_at',
  'priority',
  'attempts',
  'last_error',
  'loaded',
  'updated_at',
  'token',
  'reserved_at',
  'deadline_at',
] as const;

/** Forced: take the new values. finished_at comes last in both: assignments run left to right and see earlier ones. */
const FORCED_UPDATE = [...UPDATED, 'finished_at'].map((c) => `${c} = VALUES(${c})`).join(', ');
/**
 * Guarded (MySQL has no WHERE on this clause): every column keeps its value when the row is terminal, when
 * the row is a reservation another holder keeps past this one's start (a reservation is claimed, never taken
 * over: the reserve reads the row back, journaled-store/reservation-claims.ts), and when a step back to ready or
 * delayed comes from an older reservation than the row's (a late asynchronous retry or release: it must not undo
 * the next holder's reservation, journaled-store/kept-reservations.ts). Assignments run left to right and see the
 * earlier ones, so the condition is taken once per row, in a user variable, before the first assignment.
 */
const GUARD = `(@delayq_take := (finished_at IS NULL AND NOT IFNULL(VALUES(state) = 'reserved' AND state = 'reserved'
  AND NOT (token <=> VALUES(token)) AND deadline_at > VALUES(reserved_at), FALSE)
  AND NOT IFNULL(VALUES(state) IN ('ready', 'delayed') AND state = 'reserved'
  AND reserved_at > IFNULL(VALUES(reserved_at), 0), FALSE)))`;
const GUARDED_UPDATE = [...UPDATED, 'finished_at']
  .map((c, i) => `${c} = IF(${i === 0 ? GUARD : '@delayq_take'}, VALUES(${c}), ${c})`)
  .join(', ');

type Escape = (value: unknown) => string;

function jobValues(rows: readonly JobRow[], escape: Escape, nonce: string | null): string {
  return rows.map((r) => `(${JOB_COLUMNS.map((c) => escape(c === 'push_nonce' ? nonce : r[c])).join(',')})`).join(',');
}

/**
 * The statements of one part of a batch, and the index of the SELECT that tells which inserts created a
 * row (the nonce: INSERT IGNORE does not say which rows it skipped).
 */
function partStatements(part: RowBatch, escape: Escape): { statements: string[]; select: number | null } {
  const statements: string[] = [];
  let select: number | null = null;
  const jobs = `INSERT INTO delayq_jobs (${JOB_COLUMNS.join(', ')}) VALUES `;
  if (part.inserts.length) {
    const nonce = randomBytes(8).toString('hex');
    statements.push(`INSERT IGNORE${jobs.slice('INSERT'.length)}${jobValues(part.inserts, escape, nonce)}`);
    select = statements.length;
    statements.push(
      `SELECT id FROM delayq_jobs WHERE id IN (${part.inserts.map((r) => escape(r.id)).join(',')}) AND push_nonce = ${escape(nonce)}`,
    );
  }
  if (part.forced.length)
    statements.push(`${jobs}${jobValues(part.forced, escape, null)} ON DUPLICATE KEY UPDATE ${FORCED_UPDATE}`);
  if (part.guarded.length)
    statements.push(`${jobs}${jobValues(part.guarded, escape, null)} ON DUPLICATE KEY UPDATE ${GUARDED_UPDATE}`);
  if (part.history.length) {
    const values = part.history.map((h) => `(${HISTORY_COLUMNS.map((c) => escape(h[c])).join(',')})`).join(',');
    statements.push(`INSERT INTO delayq_job_history (${HISTORY_COLUMNS.join(', ')}) VALUES ${values}`);
  }
  return { statements, select };
}

/**
 * Writes the parts of one batch in one transaction on one connection: each part is one multi-statement
 * packet (the first opens the transaction, the last commits), so a usual batch costs one round trip.
 * The pool must allow multiple statements; every value goes through the driver's escaping.
 */
export async function writeMysqlBatch(pool: Pool, parts: readonly RowBatch[]): Promise<string[]> {
  const conn = await new Promise<PoolConnection>((resolve, reject) =>
    pool.getConnection((err, c) => (err ? reject(err) : resolve(c))),
  );
  const query = (text: string) =>
    new Promise<unknown>((resolve, reject) => conn.query(text, (err, result) => (err ? reject(err) : resolve(result))));
  const escape: Escape = (v) => conn.escape(v);
  let broken = false;
  try {
    const created: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      const { statements, select } = partStatements(parts[i]!, escape);
      const first = i === 0 ? 1 : 0;
      if (first) statements.unshift('START TRANSACTION');
      if (i === parts.length - 1) statements.push('COMMIT');
      const results = await query(statements.join(';\n'));
      // One statement answers its result alone; several answer an array of results.
      const list = statements.length === 1 ? [results] : (results as unknown[]);
      if (select !== null) for (const row of list[select + first] as { id: string }[]) created.push(row.id);
    }
    return created;
  } catch (err) {
    // A failed statement stops the packet with the transaction still open: roll it back before the
    // connection goes back to the pool, or drop the connection.
    await query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    if (broken) conn.destroy();
    else conn.release();
  }
}
