/**
 * Consumers: reserve (long-poll), touch, finish, fail, release. Every call after reserve carries the
 * reservation token, so a consumer whose TTR lapsed cannot finish a job that was delivered again.
 */
import {
  FailRequest,
  FailResponse,
  JobIdParams,
  JobResponse,
  ReserveRequest,
  ReserveResponse,
  TokenRequest,
  ReleaseRequest,
  TouchRequest,
} from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { toWireJob, toWireReservation } from '../wire.js';
import { reserveForRequest } from '../reserve-for-request.js';
import { authorizeJob, errorResponses } from '../route-helpers.js';



export function registerReservationRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/reserve',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Reserve up to `count` ready jobs; with `waitMs`, wait (long-poll) until one is ready',
        description:
          'Answers as soon as at least one job is reserved, or with an empty list after waitMs. If the client ' +
          'disconnects before the answer is written, the jobs reserved for it are released at once.',
        body: ReserveRequest,
        response: { 200: ReserveResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      authorizeTopic(request, request.body.topics, 'topics');
      const reservations = await reserveForRequest(service, request, reply, request.body);
      return { reservations: reservations.map(toWireReservation) };
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
        summary: 'Give a reservation back, at once or after delayMs (the attempt does not count)',
        params: JobIdParams,
        body: ReleaseRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      const { token, delayMs } = request.body;
      return { job: toWireJob(await service.release(request.params.id, token, { delayMs })) };
    },
  );
}
