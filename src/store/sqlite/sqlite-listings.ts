/**
 * SqliteStore's due-time and reserved listings, read on the partial indexes of migration 001 and paged by
 * (time, id) cursors (store/listings.ts).
 */
import { afterCursor, listingCursor, parseListingCursor } from '../listings.js';
import type { DueListQuery, DuePage, ReservedListQuery, ReservedPage } from '../listings.js';
import { rowToJob, type JobRow } from './job-row.js';
import type { SqliteAccess } from './sqlite-extras.js';

const SQL = {
  dueAll: `SELECT * FROM jobs WHERE state = 'delayed' AND run_at >= @from AND run_at < @to
    AND (run_at > @at OR (run_at = @at AND id > @id)) ORDER BY run_at, id LIMIT @limit`,
  dueTopic: `SELECT * FROM jobs WHERE state = 'delayed' AND run_at >= @from AND run_at < @to AND topic = @topic
    AND (run_at > @at OR (run_at = @at AND id > @id)) ORDER BY run_at, id LIMIT @limit`,
  reserved: `SELECT jobs.*, (SELECT node FROM job_history h WHERE h.job_id = jobs.id AND h.event = 'reserve'
      ORDER BY h.seq DESC LIMIT 1) AS reserved_by
    FROM jobs WHERE state = 'reserved' AND (@topic IS NULL OR topic = @topic)
      AND (deadline_at > @at OR (deadline_at = @at AND id > @id)) ORDER BY deadline_at, id LIMIT @limit`,
} as const;

export class SqliteListings {
  private readonly sql: SqliteAccess;

  constructor(sql: SqliteAccess) {
    this.sql = sql;
  }

  private prepare(name: keyof typeof SQL) {
    return this.sql.conn().prepare(SQL[name]);
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
