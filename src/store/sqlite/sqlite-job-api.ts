/**
 * SqliteStore's job-API methods (issue 23): outcomes and retention in the `job_extras` table (migration
 * 021: its triggers start a job's own retention as it ends and drop the row with the job), due-time and
 * reserved listings on the partial indexes of migration 001. Each write goes through the store's group
 * commit, as the store's own transitions do.
 */
import type { EpochMs } from '../../core/clock.js';
import type { JobError, JobOutcome, NewOutcome, Retention } from '../../core/job-outcome.js';
import { TERMINAL_STATES } from '../../core/job.js';
import { afterCursor, listingCursor, parseListingCursor } from '../listings.js';
import type { DueListQuery, DuePage, ReservedListQuery, ReservedPage } from '../listings.js';
import { rowToJob, type JobRow } from './job-row.js';
import type { SqliteAccess } from './sqlite-extras.js';

const TERMINAL = TERMINAL_STATES.map((s) => `'${s}'`).join(', ');

const SQL = {
  fence: `SELECT state, token FROM jobs WHERE id = ?`,
  saveOutcome: `INSERT INTO job_extras (id, token, result, error, outcome_at) VALUES (@id, @token, @result, @error, @at)
    ON CONFLICT (id) DO UPDATE SET token = excluded.token, result = excluded.result, error = excluded.error,
      outcome_at = excluded.outcome_at`,
  outcome: `SELECT e.token, e.result, e.error, e.outcome_at, j.state, j.token AS job_token
    FROM job_extras e JOIN jobs j ON j.id = e.id WHERE e.id = ? AND e.outcome_at IS NOT NULL`,
  saveRetention: `INSERT INTO job_extras (id, keep_finished_ms, keep_dead_ms) VALUES (@id, @finished, @dead)
    ON CONFLICT (id) DO UPDATE SET keep_finished_ms = excluded.keep_finished_ms, keep_dead_ms = excluded.keep_dead_ms`,
  // A job that already ended starts its retention now (the trigger only sees later endings).
  startRetention: `UPDATE job_extras SET remove_at = (SELECT finished_at + CASE state WHEN 'finished'
      THEN job_extras.keep_finished_ms WHEN 'dead' THEN job_extras.keep_dead_ms END FROM jobs WHERE jobs.id = job_extras.id)
    WHERE id = ?`,
  retainedDue: `SELECT e.id, j.state FROM job_extras e LEFT JOIN jobs j ON j.id = e.id
    WHERE e.remove_at <= ? ORDER BY e.remove_at LIMIT ?`,
  forgetRemoval: `UPDATE job_extras SET remove_at = NULL WHERE id = ?`,
  deleteEnded: `DELETE FROM jobs WHERE id = ? AND state IN (${TERMINAL})`,
  deleteHistory: `DELETE FROM job_history WHERE job_id = ?`,
  dueAll: `SELECT * FROM jobs WHERE state = 'delayed' AND run_at >= @from AND run_at < @to
    AND (run_at > @at OR (run_at = @at AND id > @id)) ORDER BY run_at, id LIMIT @limit`,
  dueTopic: `SELECT * FROM jobs WHERE state = 'delayed' AND run_at >= @from AND run_at < @to AND topic = @topic
    AND (run_at > @at OR (run_at = @at AND id > @id)) ORDER BY run_at, id LIMIT @limit`,
  reserved: `SELECT jobs.*, (SELECT node FROM job_history h WHERE h.job_id = jobs.id AND h.event = 'reserve'
      ORDER BY h.seq DESC LIMIT 1) AS reserved_by
    FROM jobs WHERE state = 'reserved' AND (@topic IS NULL OR topic = @topic)
      AND (deadline_at > @at OR (deadline_at = @at AND id > @id)) ORDER BY deadline_at, id LIMIT @limit`,
} as const;

interface OutcomeRow {
  token: string | null;
  result: string | null;
  error: string | null;
  outcome_at: number;
  state: string;
  job_token: string | null;
}

export class SqliteJobApi {
  private readonly sql: SqliteAccess;

  constructor(sql: SqliteAccess) {
    this.sql = sql;
  }

  private prepare(name: keyof typeof SQL) {
    return this.sql.conn().prepare(SQL[name]);
  }

  recordOutcome(id: string, token: string, outcome: NewOutcome, now: EpochMs): Promise<boolean> {
    return this.sql.write(() => {
      const job = this.prepare('fence').get(id) as { state: string; token: string | null } | undefined;
      if (!job || job.token !== token || (job.state !== 'reserved' && job.state !== 'finished')) return false;
      this.prepare('saveOutcome').run({
        id,
        token,
        result: outcome.result,
        error: outcome.error === null ? null : JSON.stringify(outcome.error),
        at: now,
      });
      return true;
    });
  }

  async outcomeOf(id: string): Promise<JobOutcome | null> {
    const row = this.prepare('outcome').get(id) as OutcomeRow | undefined;
    if (!row) return null;
    const counts = row.state === 'finished' && row.job_token === row.token;
    return {
      result: counts ? row.result : null,
      error: row.error === null ? null : (JSON.parse(row.error) as JobError),
      at: row.outcome_at,
    };
  }

  setRetentionMany(ids: readonly string[], retention: Retention): Promise<void> {
    return this.sql.write(() => {
      const save = this.prepare('saveRetention');
      const start = this.prepare('startRetention');
      for (const id of ids) {
        save.run({ id, finished: retention.finishedMs, dead: retention.deadMs });
        start.run(id);
      }
    });
  }

  purgeRetained(now: EpochMs, limit: number): Promise<string[]> {
    return this.sql.write(() => {
      const rows = this.prepare('retainedDue').all(now, limit) as { id: string; state: string | null }[];
      const deleted: string[] = [];
      for (const row of rows) {
        // Redriven since it ended: its retention starts again when it ends again.
        if ((row.state === 'finished' || row.state === 'dead') && this.deleteOne(row.id)) deleted.push(row.id);
        else this.prepare('forgetRemoval').run(row.id);
      }
      return deleted;
    });
  }

  deleteEndedMany(ids: readonly string[]): Promise<number> {
    return this.sql.write(() => ids.reduce((n, id) => n + this.deleteOne(id), 0));
  }

  /** Deletes a terminal job and its history (its extras row goes by trigger); 1 when deleted. */
  private deleteOne(id: string): number {
    if (this.prepare('deleteEnded').run(id).changes === 0) return 0;
    this.prepare('deleteHistory').run(id);
    return 1;
  }

  async listDue(query: DueListQuery): Promise<DuePage> {
    const cursor = parseListingCursor(query.cursor) ?? { at: Number.MIN_SAFE_INTEGER, id: '' };
    const params = { from: query.from, to: query.to, at: cursor.at, id: cursor.id, limit: query.limit + 1 };
    const rows = (
      query.topic === undefined
        ? this.prepare('dueAll').all(params)
        : this.prepare('dueTopic').all({ ...params, topic: query.topic })
    ) as JobRow[];
    const jobs = rows.slice(0, query.limit).map(rowToJob);
    const last = jobs[jobs.length - 1];
    return { jobs, next: rows.length > query.limit && last ? listingCursor(last.runAt, last.id) : null };
  }

  async listReserved(query: ReservedListQuery): Promise<ReservedPage> {
    const cursor = parseListingCursor(query.cursor);
    const rows = this.prepare('reserved').all({
      topic: query.topic ?? null,
      at: cursor?.at ?? Number.MIN_SAFE_INTEGER,
      id: cursor?.id ?? '',
      limit: query.limit + 1,
    }) as (JobRow & { reserved_by: string | null })[];
    const reservations = rows
      .slice(0, query.limit)
      .filter((r) => afterCursor(r.deadline_at!, r.id, cursor))
      .map((r) => ({ job: rowToJob(r), deadlineAt: r.deadline_at!, node: r.reserved_by }));
    const last = reservations[reservations.length - 1];
    return {
      reservations,
      next: rows.length > query.limit && last ? listingCursor(last.deadlineAt, last.job.id) : null,
    };
  }
}
