/**
 * Consumers: reserve (long-poll), touch, finish, fail, release. Every call after reserve carries the
 * reservation token, so a consumer whose TTR lapsed cannot finish a job that was delivered again.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Reservation } from '../../core/job.js';
import {
  FailRequest,
  FailResponse,
  JobIdParams,
  JobResponse,
  TokenRequest,
  TouchRequest,
} from '../../protocol/schemas.js';
import type { DelayqService, ReserveRequest as ServiceReserveRequest } from '../../service.js';
import type { DelayqApp, RouteContext } from '../app.js';
import { authorizeTopic } from '../auth.js';
import { settleAcks } from '../batch-ack.js';
import { ReserveAndAckRequest, ReserveAndAckResponse } from '../../protocol/ack-schemas.js';
import { toWireJob, toWireReservation } from '../wire.js';
import { authorizeJob, errorResponses } from './jobs.js';

/** Gives reservations back at once: their consumer went away before it could receive them. */
export async function releaseAll(service: DelayqService, reservations: readonly Reservation[]): Promise<number> {
  const results = await Promise.allSettled(reservations.map((r) => service.release(r.job.id, r.token)));
  return results.filter((r) => r.status === 'fulfilled').length;
}

/**
 * Reserves for an HTTP request, tied to its connection: if the client disconnects while waiting, the
 * wait stops; if it disconnected by the time jobs were reserved, they are released at once (instead of
 * waiting out their TTR) and the answer is empty. Used by every route that reserves.
 */
export async function reserveForRequest(
  service: DelayqService,
  request: FastifyRequest,
  reply: FastifyReply,
  reserve: ServiceReserveRequest,
): Promise<Reservation[]> {
  const clientGone = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableEnded) clientGone.abort();
  };
  reply.raw.once('close', onClose);
  try {
    const reservations = await service.reserve(reserve, clientGone.signal);
    if (reservations.length && (clientGone.signal.aborted || request.raw.socket.destroyed)) {
      const released = await releaseAll(service, reservations);
      request.log.info({ released }, 'consumer disconnected during reserve; released its jobs');
      return [];
    }
    return reservations;
  } finally {
    reply.raw.off('close', onClose);
  }
}

export function registerReservationRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/reserve',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Reserve up to `count` ready jobs; with `waitMs`, wait (long-poll) until one is ready',
        description:
          'Answers as soon as at least one job is reserved, or with an empty list after waitMs. If the client ' +
          'disconnects before the answer is written, the jobs reserved for it are released at once. `acks` (the ' +
          'previous batch\'s finishes, fails, releases, touches, as in POST /v1/ack) are settled before reserving and ' +
          'answered in `acks`, one result per item, so a steady consumer needs one round trip per batch.',
        body: ReserveAndAckRequest,
        response: { 200: ReserveAndAckResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { acks, ...reserve } = request.body;
      authorizeTopic(request, reserve.topics, 'topics');
      const settled = acks === undefined ? undefined : await settleAcks(service, request, acks);
      const reservations = await reserveForRequest(service, request, reply, reserve);
      return { reservations: reservations.map(toWireReservation), ...(settled === undefined ? {} : { acks: settled }) };
    },
  );

  app.post(
    '/v1/jobs/:id/touch',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Extend a reservation: a new TTR from now',
        params: JobIdParams,
        body: TouchRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      return { job: toWireJob(await service.touch(request.params.id, request.body.token, request.body.ttrMs)) };
    },
  );

  app.post(
    '/v1/jobs/:id/finish',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Finish a reserved job',
        params: JobIdParams,
        body: TokenRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      return { job: toWireJob(await service.finish(request.params.id, request.body.token)) };
    },
  );

  app.post(
    '/v1/jobs/:id/fail',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Fail a reserved job: retry after its backoff, or bury it when no attempts remain',
        params: JobIdParams,
        body: FailRequest,
        response: { 200: FailResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      const { token, ...failure } = request.body;
      const { job, decision } = await service.fail(request.params.id, token, failure);
      return { job: toWireJob(job), decision };
    },
  );

  app.post(
    '/v1/jobs/:id/release',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Give a reservation back at once (the attempt does not count)',
        params: JobIdParams,
        body: TokenRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      return { job: toWireJob(await service.release(request.params.id, request.body.token)) };
    },
  );
}
