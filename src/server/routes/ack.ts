/** Batch acknowledgement: `POST /v1/ack` settles up to LIMITS.ackBatchMax reservations, each with its own result. */
import { AckRequest, AckResponse } from '../../protocol/ack-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { settleAcks } from '../batch-ack.js';
import { errorResponses } from '../route-helpers.js';

export function registerAckRoute(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/ack',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Settle many reservations at once (finish, fail, release, touch); one result per item, in order',
        description:
          'Each item succeeds or fails on its own: a stale token (E_TOKEN_MISMATCH), a missing job (E_NOT_FOUND), a job in ' +
          'another state (E_WRONG_STATE) or a topic outside the token scope (E_FORBIDDEN) refuses that item only, and the ' +
          'answer is still 200. Results carry the new state; with `"jobs": true` also the job.',
        body: AckRequest,
        response: { 200: AckResponse, ...errorResponses },
      },
    },
    async (request) => ({ results: await settleAcks(service, request, request.body.acks, request.body.jobs === true) }),
  );
}
