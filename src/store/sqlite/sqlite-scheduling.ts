// The timer's side of the SQLite store, each run inside one write (a transaction of the group commit): due jobs
// made ready, ready jobs whose ttl ran out expired, ended jobs purged, dead jobs redriven.
import type { EpochMs } from '../../core/clock.js';
import type { JobRef, PromoteResult, RedriveTarget } from '../store.js';
import { historyOf, type FencedContext, type RowAttempts } from './sqlite-fenced.js';
import { wakeTimesOf } from './sqlite-reads.js';

export const EXPIRED_REASON = 'ttl elapsed before a consumer reserved it';

export function promoteDueRows(ctx: FencedContext, now: EpochMs, limit: number): PromoteResult {
  const rows = ctx.stmt.promoteDue.all({ now, limit }) as (JobRef & RowAttempts)[];
  const topics = new Set<string>();
  for (const row of rows) topics.add(row.topic);
  ctx.recordMany('promote', historyOf(rows, 'ready'), now);
  return { count: rows.length, topics: [...topics], next: wakeTimesOf(ctx.stmt) };
}

export function expireDueRows(ctx: FencedContext, now: EpochMs, limit: number): JobRef[] {
  const rows = ctx.stmt.expireDue.all({ now, limit }) as (JobRef & RowAttempts)[];
  ctx.recordMany('expire', historyOf(rows, 'expired'), now, EXPIRED_REASON);
  return rows.map(({ id, topic }) => ({ id, topic }));
}

/** Deletes up to `limit` jobs that ended before `before`, with their history and numbers; and ended dedup claims. */
export function purgeEndedRows(ctx: FencedContext, before: EpochMs, limit: number): number {
  const { stmt } = ctx;
  const ids = stmt.purgeCandidates.all(before, limit) as { id: string }[];
  for (const { id } of ids) {
    stmt.deleteJob.run(id);
    stmt.deleteHistory.run(id);
    stmt.deleteNumber.run(id);
  }
  // Claims whose window ended answer nothing any more (a push replaces them too); the timer's purge drops them.
  stmt.purgeDedupClaims.run(before, limit);
  return ids.length;
}

/** Dead jobs made ready again: by id, or a topic's oldest first. */
export function redriveRows(ctx: FencedContext, target: RedriveTarget, now: EpochMs): number {
  const ids =
    'ids' in target
      ? target.ids
      : (ctx.stmt.oldestDead.all(target.topic, target.limit) as { id: string }[]).map((r) => r.id);
  let count = 0;
  for (const id of ids) {
    if (ctx.stmt.toRedriven.get({ id, now })) {
      ctx.record(id, now, 'redrive', 'ready', 0);
      count++;
    }
  }
  return count;
}
