import type { Job } from '../core/job.js';
import type { WireJob } from '../protocol/schemas.js';

/** A stored job as the API shows it: the body as its JSON value rather than the stored text. */
export function toWireJob(job: Job): WireJob {
  return { ...job, body: JSON.parse(job.body) as unknown };
}
