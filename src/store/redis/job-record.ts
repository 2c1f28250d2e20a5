import type { HistoryEntry, Job } from '../../core/job.js';
import { NULL_ARG } from './record-layout.js';
import type { StoredRecord } from './record-codec.js';
import { decodeRetry } from './retry-text.js';

/** A string argument for a script, NULL_ARG for null. */
export const nul = (v: string | null | undefined): string => v ?? NULL_ARG;

/** The job a decoded record stands for. */
export function recordToJob(id: string, r: StoredRecord): Job {
  const job: Job = {
    id,
    topic: r.topic,
    tag: r.tag,
    bizKey: r.bizKey,
    body: r.body,
    state: r.state,
    runAt: r.runAt,
    priority: r.priority,
    ttrMs: r.ttrMs,
    ttlMs: r.ttlMs,
    retry: decodeRetry(r.retry),
    attempts: r.attempts,
    lastError: r.lastError,
    createdAt: r.createdAt,
    readyAt: r.readyAt,
    reservedAt: r.reservedAt,
    finishedAt: r.finishedAt,
    deadlineAt: r.deadlineAt,
  };
  if (r.group !== null) job.group = r.group;
  return job;
}

/** The record's history (decoded with it), node indexes named by `nodeName`. */
export function recordHistory(r: StoredRecord, nodeName: (index: number) => string): HistoryEntry[] {
  return (r.history ?? []).map((e) => ({
    at: e.at,
    event: e.event,
    state: e.state,
    attempt: e.attempt,
    node: nodeName(e.node),
    reason: e.reason,
  }));
}
