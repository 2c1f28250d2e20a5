import type { Job } from '../core/job.js';
import type { WireJob } from '../protocol/schemas.js';
import type { JobOutcome } from '../core/job-outcome.js';
import type { WireOutcome } from '../protocol/outcome-schemas.js';
import type { NewJobEvent } from '../core/job-event.js';
import type { WireJobEvent } from '../protocol/job-event-schemas.js';

/** A stored job as the API shows it: the body as its JSON value rather than the stored text. */
export function toWireJob(job: Job): WireJob {
  return { ...job, body: JSON.parse(job.body) as unknown };
}

/** A kept outcome as the API shows it: the result and the error's details as JSON values. */
export function toWireOutcome(outcome: JobOutcome): WireOutcome {
  const { error } = outcome;
  return {
    ...(outcome.result === null ? {} : { result: JSON.parse(outcome.result) as unknown }),
    error:
      error === null
        ? null
        : {
            message: error.message,
            code: error.code,
            ...(error.details === null ? {} : { details: JSON.parse(error.details) as unknown }),
          },
    at: outcome.at,
  };
}

/** A job event as a stream's data line carries it: the result and the error's details as JSON values. */
export function toWireJobEvent(event: NewJobEvent & { eventId?: string }): WireJobEvent {
  const { error } = event;
  return {
    ...(event.eventId === undefined ? {} : { eventId: event.eventId }),
    event: event.event,
    id: event.id,
    topic: event.topic,
    at: event.at,
    ...(event.result === null ? {} : { result: JSON.parse(event.result) as unknown }),
    ...(error === null
      ? {}
      : {
          error: {
            message: error.message,
            code: error.code,
            ...(error.details === null ? {} : { details: JSON.parse(error.details) as unknown }),
          },
        }),
  };
}
