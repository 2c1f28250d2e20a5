/** Pieces every route module uses: the error answers of a route schema, the scope check of routes addressed by id. */
import type { FastifyRequest } from 'fastify';
import type { Job } from '../core/job.js';
import { validateJobId } from '../core/job-input.js';
import { ErrorResponse } from '../protocol/schemas.js';
import type { DelayqService } from '../service/service.js';
import { mayUseTopic } from './auth.js';

/** The 4xx and 5xx answers every route shares: the catalogue's error shape (docs/errors.md). */
export const errorResponses = { '4xx': ErrorResponse, '5xx': ErrorResponse } as const;

/**
 * The job with this id, as the caller may see it: a job of a topic outside the token's scope is answered
 * exactly as an id no job has (404 E_NOT_FOUND), so the answer tells nothing of it, not even that it exists.
 */
export async function visibleJob(
  request: Pick<FastifyRequest, 'principal'>,
  service: DelayqService,
  id: string,
): Promise<Job> {
  const job = await service.get(id);
  if (!mayUseTopic(request.principal, job.topic)) throw service.notFound(id);
  return job;
}

/** For routes addressed by job id: a token limited to topics may only act on jobs it may see (visibleJob). */
export async function authorizeJob(
  request: Pick<FastifyRequest, 'principal'>,
  service: DelayqService,
  id: string,
): Promise<void> {
  if (!request.principal || request.principal.topicPrefixes === null) return;
  await visibleJob(request, service, id);
}

/**
 * The ids among `ids` that the caller may act on, for operations that pass over unknown ids (redrive by ids):
 * a job outside the token's scope is passed over as an unknown id is.
 */
export async function visibleIds(
  request: Pick<FastifyRequest, 'principal'>,
  service: DelayqService,
  ids: readonly string[],
): Promise<string[]> {
  const { principal } = request;
  if (!principal || principal.topicPrefixes === null) return [...ids];
  const jobs = await Promise.all(ids.map((id) => service.store.get(validateJobId(id))));
  return ids.filter((_, i) => {
    const job = jobs[i];
    return job !== null && job !== undefined && mayUseTopic(principal, job.topic);
  });
}
