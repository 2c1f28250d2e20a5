import type { JournalBatch } from '../journal.js';
import { journalJobToRow, type HistoryRow, type JobRow } from './schema.js';

/**
 * A journal batch as table rows, split by how each is written: new jobs (insert-if-absent), forced upserts
 * (terminal steps: they overwrite), guarded upserts (live steps: never over a terminal row), history.
 * No job is in two of the job parts (the writer keeps an insert and an upsert of one job apart).
 */
export interface RowBatch {
  inserts: JobRow[];
  forced: JobRow[];
  guarded: JobRow[];
  history: HistoryRow[];
}

/** Largest estimated size of one statement (one part of a batch), bytes: under MySQL's default packet size. */
export const MAX_BYTES_PER_STATEMENT = 4 * 1024 * 1024;
/** Most rows of one multi-row statement (each job row has 22 values). */
export const MAX_ROWS_PER_STATEMENT = 5000;

export function rowBatchOf(batch: JournalBatch, now: number): RowBatch {
  const rows: RowBatch = { inserts: [], forced: [], guarded: [], history: [] };
  for (const job of batch.inserts) rows.inserts.push(journalJobToRow(job, now, null, batch.pushedBy ?? null));
  for (const u of batch.upserts) (u.force ? rows.forced : rows.guarded).push(journalJobToRow(u.job, now, null));
  for (const h of batch.history) {
    rows.history.push({
      job_id: h.jobId,
      at: h.at,
      event: h.event,
      state: h.state,
      attempt: h.attempt,
      node: h.node,
      reason: h.reason,
    });
  }
  return rows;
}

/** Rough size of a row in a statement: its text (×3 for the worst UTF-8 and escaping) and the rest. */
function rowBytes(row: { body?: string; reason?: string | null; last_error?: string | null }): number {
  return ((row.body?.length ?? 0) + (row.reason?.length ?? 0) + (row.last_error?.length ?? 0)) * 3 + 512;
}

/**
 * Splits a batch into parts each small enough for one statement per part of the batch (usually one part:
 * the group commit's batches are small); the parts keep the order inserts, upserts, history.
 */
export function splitRowBatch(rows: RowBatch): RowBatch[] {
  const parts: RowBatch[] = [];
  let part: RowBatch = { inserts: [], forced: [], guarded: [], history: [] };
  let bytes = 0;
  let count = 0;
  for (const key of ['inserts', 'forced', 'guarded', 'history'] as const) {
    for (const row of rows[key]) {
      const size = rowBytes(row);
      if (count && (count >= MAX_ROWS_PER_STATEMENT || bytes + size > MAX_BYTES_PER_STATEMENT)) {
        parts.push(part);
        part = { inserts: [], forced: [], guarded: [], history: [] };
        bytes = 0;
        count = 0;
      }
      (part[key] as (typeof row)[]).push(row);
      bytes += size;
      count++;
    }
  }
  if (count) parts.push(part);
  return parts;
}

export function isEmptyBatch(batch: JournalBatch): boolean {
  return !batch.inserts.length && !batch.upserts.length && !batch.history.length;
}
