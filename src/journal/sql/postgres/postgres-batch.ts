import type pg from 'pg';
import type { HistoryRow, JobRow } from '../schema.js';
import type { RowBatch } from '../batch.js';
import type { BatchWritten } from '../dialect.js';

/** The job columns with their array types: each column is sent as one array parameter (unnest). */
const JOB_COLUMNS = [
  ['id', 'text'],
  ['topic', 'text'],
  ['tag', 'text'],
  ['biz_key', 'text'],
  ['body', 'text'],
  ['state', 'text'],
  ['run_at', 'bigint'],
  ['priority', 'int'],
  ['ttr_ms', 'int'],
  ['ttl_ms', 'bigint'],
  ['retry', 'text'],
  ['attempts', 'int'],
  ['last_error', 'text'],
  ['created_at', 'bigint'],
  ['finished_at', 'bigint'],
  ['loaded', 'smallint'],
  ['push_nonce', 'text'],
  ['pushed_by', 'text'],
  ['updated_at', 'bigint'],
  ['token', 'text'],
  ['reserved_at', 'bigint'],
  ['deadline_at', 'bigint'],
  ['job_group', 'text'],
] as const satisfies readonly (readonly [keyof JobRow, string])[];

const HISTORY_COLUMNS = [
  ['job_id', 'text'],
  ['at', 'bigint'],
  ['event', 'text'],
  ['state', 'text'],
  ['attempt', 'int'],
  ['node', 'text'],
  ['reason', 'text'],
] as const satisfies readonly (readonly [keyof HistoryRow, string])[];

/** Columns a transition may change; the rest of a row is fixed at its push. */
const UPDATED = [
  'state',
  'run_at',
  'priority',
  'attempts',
  'last_error',
  'finished_at',
  'loaded',
  'updated_at',
  'token',
  'reserved_at',
  'deadline_at',
] as const;

const jobNames = JOB_COLUMNS.map(([c]) => c).join(', ');
const unnestJobs = (first: number) =>
  `SELECT * FROM unnest(${JOB_COLUMNS.map(([, t], i) => `$${first + i}::${t}[]`).join(', ')})`;
const setUpdated = UPDATED.map((c) => `${c} = excluded.${c}`).join(', ');
const N = JOB_COLUMNS.length;

/**
 * One whole journal batch as ONE statement (so one round trip and its own implicit transaction): data-modifying
 * CTEs insert the new jobs (reporting the ids they created), upsert forced and guarded transitions, and append
 * the history, each from column arrays, a guarded upsert never over a terminal row nor over another holder's
 * live reservation (journaled-store/reservation-claims.ts), nor back to ready or delayed over a reservation newer
 * than the one it ended (a late asynchronous retry or release), so the text and its 76 parameters are the same for any number of rows
 * and the statement is prepared once per connection. The writer never puts one job in two of these parts.
 * The guarded upserts report the rows they wrote (RETURNING answers only the rows inserted or updated, not those
 * the guard left), so a reserve learns which claims it won without reading them back.
 */
const WRITE_BATCH_SQL = `WITH inserted AS (
    INSERT INTO delayq_jobs (${jobNames}) ${unnestJobs(1)}
    ON CONFLICT (id) DO NOTHING RETURNING id
  ), forced AS (
    INSERT INTO delayq_jobs (${jobNames}) ${unnestJobs(1 + N)}
    ON CONFLICT (id) DO UPDATE SET ${setUpdated}
  ), guarded AS (
    INSERT INTO delayq_jobs (${jobNames}) ${unnestJobs(1 + 2 * N)}
    ON CONFLICT (id) DO UPDATE SET ${setUpdated} WHERE delayq_jobs.finished_at IS NULL
      AND NOT COALESCE(excluded.state = 'reserved' AND delayq_jobs.state = 'reserved'
        AND delayq_jobs.token IS DISTINCT FROM excluded.token AND delayq_jobs.deadline_at > excluded.reserved_at, FALSE)
      AND NOT COALESCE(excluded.state IN ('ready', 'delayed') AND delayq_jobs.state = 'reserved'
        AND delayq_jobs.reserved_at > COALESCE(excluded.reserved_at, 0), FALSE)
    RETURNING id, token
  ), history AS (
    INSERT INTO delayq_job_history (${HISTORY_COLUMNS.map(([c]) => c).join(', ')})
    SELECT * FROM unnest(${HISTORY_COLUMNS.map(([, t], i) => `$${1 + 3 * N + i}::${t}[]`).join(', ')})
  )
  SELECT id, NULL AS token, TRUE AS created FROM inserted
  UNION ALL SELECT id, token, FALSE FROM guarded`;

function jobArrays(rows: readonly JobRow[]): unknown[][] {
  return JOB_COLUMNS.map(([c]) => rows.map((r) => r[c]));
}

/** Writes one batch in one statement; resolves with the ids of `inserts` it created and the `guarded` rows it wrote. */
export async function writePostgresBatch(db: pg.Pool | pg.PoolClient, batch: RowBatch): Promise<BatchWritten> {
  const values = [
    ...jobArrays(batch.inserts),
    ...jobArrays(batch.forced),
    ...jobArrays(batch.guarded),
    ...HISTORY_COLUMNS.map(([c]) => batch.history.map((h) => h[c])),
  ];
  const result = await db.query<{ id: string; token: string | null; created: boolean }>({
    name: 'delayq_write_batch',
    text: WRITE_BATCH_SQL,
    values,
  });
  const created: string[] = [];
  const claimed: NonNullable<BatchWritten['claimed']> = [];
  for (const r of result.rows) {
    if (r.created) created.push(r.id);
    else claimed.push({ id: r.id, token: r.token });
  }
  return { created, claimed };
}
