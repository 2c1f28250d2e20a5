/**
 * Job events (docs/events.md): what a follower of a topic or of one job hears when a job ends or fails an
 * attempt. Named by the state the job reached, so a follower never maps transition words to outcomes.
 */
import type { EpochMs } from './clock.js';
import type { HistoryEvent } from './job.js';
import type { JobError } from './job-outcome.js';

/**
 * The transitions a follower hears, each under its job event's name (the state the job reached; `failed`:
 * one attempt failed and the job will be retried). The one table from which the names are derived.
 */
export const JOB_EVENT_OF = {
  finish: 'finished',
  retry: 'failed',
  bury: 'dead',
  cancel: 'cancelled',
  expire: 'expired',
} as const satisfies Partial<Record<HistoryEvent, string>>;

/** finished, dead, cancelled and expired end the job; failed is one attempt that will be retried. */
export type JobEventName = (typeof JOB_EVENT_OF)[keyof typeof JOB_EVENT_OF];
export const JOB_EVENT_NAMES: readonly JobEventName[] = Object.values(JOB_EVENT_OF);

/** The events after which a job changes no more: a one-job stream ends with them. */
export const ENDING_JOB_EVENTS: ReadonlySet<JobEventName> = new Set(['finished', 'dead', 'cancelled', 'expired']);

/** One event as it is appended to the event log. */
export interface NewJobEvent {
  event: JobEventName;
  /** The job's id. */
  id: string;
  topic: string;
  /** When it happened (the service clock). */
  at: EpochMs;
  /** finished: the JSON text of the consumer's result, if it sent one. */
  result: string | null;
  /** failed and dead: the consumer's error (or the reaper's text when the TTR lapsed); cancelled: the reason. */
  error: JobError | null;
}

/** An event read back from the log, with its place in it (the SSE id a follower resumes after). */
export interface JobEvent extends NewJobEvent {
  eventId: string;
}

/** Event ids: `<ms>-<seq>` (a Redis stream id) or a plain counter (the in-process log); both ordered numerically. */
export const EVENT_ID_RE = /^\d{1,20}(-\d{1,20})?$/;

/** Orders two event ids of one log: negative when a comes first. */
export function compareEventIds(a: string, b: string): number {
  const [am = '0', as = '0'] = a.split('-');
  const [bm = '0', bs = '0'] = b.split('-');
  const major = BigInt(am) - BigInt(bm);
  if (major !== 0n) return major < 0n ? -1 : 1;
  const minor = BigInt(as) - BigInt(bs);
  return minor === 0n ? 0 : minor < 0n ? -1 : 1;
}
