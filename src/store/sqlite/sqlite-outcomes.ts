/**
 * What SqliteStore keeps of a job beside its row: the outcome a consumer reported and the job's own
 * retention, in the `job_extras` table (migration 021: its triggers start a job's own retention as it ends
 * and drop the row with the job), and the deletion of ended jobs by id. Each write goes through the
 * store's group commit, as the store's own transitions do.
 */
import type { EpochMs } from '../../core/clock.js';
import type { JobError, JobOutcome, NewOutcome, Retention } from '../../core/job-outcome.js';
import { TERMINAL_STATES } from '../../core/job.js';
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
} as const;

interface OutcomeRow {
  token: string | null;
  result: string | null;
  error: string | null;
  outcome_at: number;
  state: string;
  job_token: string | null;
}

export class SqliteOutcomes {
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
}
