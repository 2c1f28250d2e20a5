// A batch of pushes into the SQLite store, inside one write: each job inserted, or (its id held) answered or
// changed by its onExists rule; dedup keys claimed; topic counts, due minutes and push history written once per
// batch.
import type { EpochMs } from '../../core/clock.js';
import { pushedJob, type JobState, type NewJob } from '../../core/job.js';
import { dedupPushReason } from '../../core/push-dedup.js';
import type { PushResult } from '../store.js';
import type { JobRow } from './job-row.js';
import { DUE_MINUTE_MS } from './sqlite-due-histogram.js';
import { claimedJob, claimKey } from './sqlite-dedup.js';
import type { FencedContext, HistoryItem } from './sqlite-fenced.js';
import { pushOntoExisting } from './sqlite-upsert.js';

export function pushRows(ctx: FencedContext, jobs: readonly NewJob[], now: EpochMs): PushResult[] {
  const history: HistoryItem[] = [];
  /** Jobs created per `state|topic`, added to topic_counts once per batch. */
  const created = new Map<string, number>();
  /** Delayed jobs created per `minute|topic`, added to due_minutes once per batch. */
  const dueMinutes = new Map<string, number>();
  const results = jobs.map((job): PushResult => {
    const claiming = job.dedup && !job.dedup.claimed;
    if (claiming) {
      const first = claimedJob(ctx.stmt, job, now);
      if (first) return { created: false, job: first, duplicate: true };
    }
    const ready = job.runAt <= now;
    const state: JobState = ready ? 'ready' : 'delayed';
    const expireAt = ready && job.ttlMs !== null ? job.runAt + job.ttlMs : null;
    const readyAt = ready ? now : null;
    const inserted = ctx.stmt.insertJob.run({
      id: job.id,
      topic: job.topic,
      tag: job.tag,
      bizKey: job.bizKey,
      body: job.body,
      runAt: job.runAt,
      priority: job.priority,
      ttrMs: job.ttrMs,
      ttlMs: job.ttlMs,
      state,
      retry: JSON.stringify(job.retry),
      expireAt,
      readyAt,
      now,
      group: job.group ?? null,
    });
    if (inserted.changes === 0) {
      // The push entries so far first: a batch that names one id twice keeps its history in order.
      if (job.onExists) ctx.recordMany('push', history.splice(0), now);
      const held = ctx.stmt.getJob.get(job.id) as JobRow;
      // As on the stores that claim first (store/dedup-claims.ts): the key names the job of its topic holding the id.
      if (claiming && held.topic === job.topic) claimKey(ctx.stmt, job, now);
      return pushOntoExisting(ctx, held, job, now);
    }
    if (job.dedup) ctx.record(job.id, now, 'push', state, 0, dedupPushReason(job.dedup));
    else history.push([job.id, state, 0]);
    if (claiming) claimKey(ctx.stmt, job, now);
    const counted = `${state}|${job.topic}`;
    created.set(counted, (created.get(counted) ?? 0) + 1);
    if (!ready) {
      const minute = `${Math.floor(job.runAt / DUE_MINUTE_MS)}|${job.topic}`;
      dueMinutes.set(minute, (dueMinutes.get(minute) ?? 0) + 1);
    }
    return { created: true, job: pushedJob(job, now) };
  });
  for (const [counted, n] of created) {
    const cut = counted.indexOf('|');
    ctx.stmt.addTopicCount.run(counted.slice(cut + 1), counted.slice(0, cut), n);
  }
  for (const [minute, n] of dueMinutes) {
    const cut = minute.indexOf('|');
    ctx.stmt.addDueMinutes.run(minute.slice(cut + 1), Number(minute.slice(0, cut)), n);
  }
  ctx.recordMany('push', history, now);
  return results;
}
