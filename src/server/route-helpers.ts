/** Pieces every route module uses: the error answers of a route schema, the topic check of routes addressed by id. */
import type { FastifyRequest } from 'fastify';
import { ErrorResponse } from '../protocol/schemas.js';
import type { DelayqService } from '../service/service.js';
import { authorizeTopic } from './auth.js';

/** The 4xx and 5xx answers every route shares: the catalogue's error shape (docs/errors.md). */
export const errorResponses = { '4xx': ErrorResponse, '5xx': ErrorResponse } as const;

/** For routes addressed by job id: a token limited to topics may only act on jobs of those topics. */
export async function authorizeJob(
  request: Pick<FastifyRequest, 'principal'>,
  service: DelayqService,
  id: string,
): Promise<void> {
  if (!request.principal || request.principal.topicPrefixes === null) return;
  const job = await service.get(id);
  authorizeTopic(request, job.topic);
}
