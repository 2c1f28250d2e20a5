import type { Job } from '../core/job.js';
import type { WireJob } from '../protocol/schemas.js';
import type { JobOutcome } from '../core/job-outcome.js';
import type { WireOutcome } from '../protocol/outcome-schemas.js';

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
