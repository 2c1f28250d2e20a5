/**
 * Consumers: reserve (long-poll), touch, finish, fail, release. Every call after reserve carries the
 * reservation token, so a consumer whose TTR lapsed cannot finish a job that was delivered again.
 */
import { JobIdParams, JobResponse } from '../../protocol/schemas.js';
import { FailRequest, FailResponse, ReleaseRequest, TouchRequest } from '../../protocol/reservation-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { settleAcks } from '../batch-ack.js';
import { ReserveAndAckRequest, ReserveAndAckResponse } from '../../protocol/ack-schemas.js';
import { toWireJob } from '../wire.js';
import { reserveAnswerJson, sendJsonText } from '../job-json.js';
import { reserveForRequest } from '../reserve-for-request.js';
import { FinishRequest } from '../../protocol/reservation-schemas.js';
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
          'disconnects before the answer is written, the jobs reserved for it are released at once. `acks` (the ' +
          "previous batch's finishes, fails, releases, touches, as in POST /v1/ack) are settled before reserving and " +
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
      return sendJsonText(reply, 200, reserveAnswerJson(reservations, settled));
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
        description:
          'A repeat with the token that finished the job (its answer was lost) answers 200 with the job as it ' +
          'is; another token on a finished job is refused with E_WRONG_STATE.',
        params: JobIdParams,
        body: FinishRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      const { token, result } = request.body;
      return { job: toWireJob(await service.finish(request.params.id, token, result)) };
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
