import { copyJob, pushedJob } from '../core/job.js';
import type { EpochMs } from '../core/clock.js';
import type { HistoryEntry, Job, HistoryEvent, NewJob, Reservation } from '../core/job.js';
import type { JournalJob } from './journal.js';

/**
 * The inner store's liveness marker: a job under a reserved topic and id (users cannot create either:
 * topics and ids must not start with `#`). It disappears with everything else on FLUSHALL, or on a
 * restart without persistence, which is how the decorator notices that the inner store lost its data.
 */
export const MARKER_TOPIC = '#delayq';
export const MARKER_ID = '#delayq:marker';
/** Far beyond any allowed delay (10 years), so the marker never comes due and is easy to hide. */
export const MARKER_RUN_AT: EpochMs = Date.UTC(2200, 0, 1);

export function markerJob(): NewJob {
  return {
    id: MARKER_ID,
    topic: MARKER_TOPIC,
    tag: null,
    bizKey: null,
    body: '{"purpose":"delayq journal marker: if this job is gone, the store lost its data"}',
    runAt: MARKER_RUN_AT,
    priority: 0,
    ttrMs: 1000,
    ttlMs: null,
    retry: { maxAttempts: 1, backoff: { type: 'fixed', delayMs: 1000 } },
  };
}

export function isMarker(id: string): boolean {
  return id === MARKER_ID;
}

/** A new job as the journal first sees it: delayed or ready, held by the inner store or not. */
export function newJournalJob(job: NewJob, now: EpochMs, loaded: boolean): JournalJob {
  return withLoaded(pushedJob(job, now), loaded);
}

export function toNewJob(job: Job): NewJob {
  const fresh: NewJob = {
    id: job.id,
    topic: job.topic,
    tag: job.tag,
    bizKey: job.bizKey,
    body: job.body,
    runAt: job.runAt,
    priority: job.priority,
    ttrMs: job.ttrMs,
    ttlMs: job.ttlMs,
    retry: job.retry,
  };
  if (job.group !== undefined) fresh.group = job.group;
  return fresh;
}

export function withoutLoaded(job: JournalJob): Job {
  return copyJob(job);
}

export function loadedJob(job: Job): JournalJob {
  return withLoaded(job, true);
}

// Copy, then add: on Node 20 a spread with an extra field makes a slow dictionary-mode object (as pushedJob notes).
function withLoaded(job: Job, loaded: boolean): JournalJob {
  const copy = copyJob(job) as JournalJob;
  copy.loaded = loaded;
  return copy;
}

export function entry(
  job: Pick<Job, 'id' | 'state' | 'attempts'>,
  event: HistoryEvent,
  at: EpochMs,
  node: string,
  reason: string | null = null,
): HistoryEntry & { jobId: string } {
  return { jobId: job.id, at, event, state: job.state, attempt: job.attempts, node, reason };
}

/** A reservation as the journal keeps it: the job with its token. */
export function reservedRow(reservation: Reservation): JournalJob {
  const row = loadedJob(reservation.job);
  row.token = reservation.token;
  return row;
}
