/**
 * The SQLite store's side of upsert and debounce (core/push-on-exists.ts): a push whose id a waiting job of its
 * topic holds replaces or extends that job, inside the push's own transaction.
 */
import type { EpochMs } from '../../core/clock.js';
import type { NewJob, JobState } from '../../core/job.js';
import { upsertRunAt } from '../../core/push-on-exists.js';
import type { PushResult } from '../store.js';
import { rowToJob, type JobRow } from './job-row.js';
import { toWaiting, type FencedContext } from './sqlite-fenced.js';

/** The push's answer for an id `row` holds: that job kept, or changed by the push's onExists rule. */
export function pushOntoExisting(ctx: FencedContext, row: JobRow, job: NewJob, now: EpochMs): PushResult {
  const rule = job.onExists;
  if (!rule || row.topic !== job.topic || (row.state !== 'delayed' && row.state !== 'ready'))
    return { created: false, job: rowToJob(row) };
  const runAt = upsertRunAt(rule, job.runAt, row.created_at);
  if (rule.mode === 'replace') ctx.stmt.replaceBody.run({ id: row.id, body: job.body, priority: job.priority });
  const updated = toWaiting(ctx.stmt, row, runAt, now, null);
  const event = rule.mode === 'replace' ? 'replace' : 'extend';
  ctx.record(row.id, now, event, updated.state as JobState, updated.attempts, `runAt=${runAt}`);
  return { created: false, job: rowToJob(updated), change: rule.mode === 'replace' ? 'replaced' : 'extended' };
}
