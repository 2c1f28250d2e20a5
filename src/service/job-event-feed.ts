/**
 * Job events for followers (docs/events.md): the service's 'job' events of ended or failed
 * jobs become JobEvents in the store's event log (store/job-event-log.ts), and followers read them back
 * filtered by topic, job and event name. On Redis the log is one stream, so a follower connected to one
 * instance hears what every instance did. A finish's result and a fail's structured error are noted by
 * the service just before the store call whose event carries them.
 */
import { invalid } from '../core/errors.js';
import { EVENT_ID_RE, JOB_EVENT_OF, type JobEvent, type JobEventName, type NewJobEvent } from '../core/job-event.js';
import type { HistoryEvent, Job } from '../core/job.js';
import type { JobError, JobOutcome, NewOutcome } from '../core/job-outcome.js';
import type { ServiceEvents, ServiceJobEvent } from './service-events.js';
import type { JobEventLog } from '../store/job-event-log.js';

/** Which service events followers hear, under which name (core/job-event.ts). */
const NAMES: Partial<Record<HistoryEvent, JobEventName>> = JOB_EVENT_OF;

/** What a follower asks for; absent fields match everything. */
export interface JobEventFilter {
  topic?: string | undefined;
  id?: string | undefined;
  events?: ReadonlySet<JobEventName> | undefined;
}

export class JobEventFeed {
  private readonly events: ServiceEvents;
  private readonly log: JobEventLog;
  /** Outcomes the service is about to hand to the store, by job id (consumed by the event, or forgotten). */
  private readonly noted = new Map<string, NewOutcome>();
  private readonly onJob = (e: ServiceJobEvent): void => this.publish(e);

  constructor(events: ServiceEvents, log: JobEventLog) {
    this.events = events;
    this.log = log;
  }

  start(): void {
    this.events.on('job', this.onJob);
  }

  stop(): void {
    this.events.off('job', this.onJob);
    this.noted.clear();
  }

  /** The result or error the next finish, retry or bury event of this job carries. */
  note(id: string, outcome: NewOutcome): void {
    this.noted.set(id, outcome);
  }

  /** Drops a note whose store call failed or carried no event. */
  forget(id: string): void {
    this.noted.delete(id);
  }

  private publish(e: ServiceJobEvent): void {
    const event = NAMES[e.event];
    // An event standing for several jobs (a promote or redrive count) names no job: followers need the job.
    if (event === undefined || e.id === undefined) return;
    const noted = this.noted.get(e.id);
    this.noted.delete(e.id);
    const text = e.error ?? null;
    this.log.append([
      {
        event,
        id: e.id,
        topic: e.topic,
        at: e.at,
        result: event === 'finished' ? (noted?.result ?? null) : null,
        error: event === 'finished' ? null : (noted?.error ?? (text === null ? null : plainError(text))),
      },
    ]);
  }

  /**
   * Follows events matching `filter` after `lastEventId` (null: from now on). Validates the follower's
   * input first (E_VALIDATION naming the field). Resolves to the unsubscribe function.
   */
  follow(filter: JobEventFilter, lastEventId: string | null, listener: (event: JobEvent) => void): Promise<() => void> {
    checkLastEventId(lastEventId);
    return this.log.follow(lastEventId, (event) => {
      if (filter.topic !== undefined && event.topic !== filter.topic) return;
      if (filter.id !== undefined && event.id !== filter.id) return;
      if (filter.events !== undefined && !filter.events.has(event.event)) return;
      listener(event);
    });
  }
}

/** A follower's Last-Event-ID, refused (E_VALIDATION naming the header) unless it is an event id. */
export function checkLastEventId(lastEventId: string | null): string | null {
  if (lastEventId !== null && !EVENT_ID_RE.test(lastEventId))
    throw invalid('Last-Event-ID', 'must be an event id from this stream (digits, or digits-digits)');
  return lastEventId;
}

function plainError(message: string): JobError {
  return { message, code: null, details: null };
}

/** The event a job that already ended would have sent (a one-job stream opened after the end). */
export function endedEventOf(job: Job, outcome: JobOutcome | null): NewJobEvent | null {
  if (job.state !== 'finished' && job.state !== 'dead' && job.state !== 'cancelled' && job.state !== 'expired')
    return null;
  const finished = job.state === 'finished';
  return {
    event: job.state,
    id: job.id,
    topic: job.topic,
    at: job.finishedAt ?? job.createdAt,
    result: finished ? (outcome?.result ?? null) : null,
    error: finished ? null : (outcome?.error ?? (job.lastError === null ? null : plainError(job.lastError))),
  };
}
