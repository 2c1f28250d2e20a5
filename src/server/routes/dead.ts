/** Dead letters: list them, and redrive them (dead → ready with attempts reset) by topic or by ids. */
import { Type } from 'typebox';
import { CountResponse, ListResponse, RedriveRequest, Topic } from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { toWireJob } from '../wire.js';
import { authorizeJob, errorResponses } from '../route-helpers.js';

export const DeadQuery = Type.Object(
  {
    topic: Topic,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);

export function registerDeadRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/dead',
    {
      schema: {
        tags: ['dead'],
        summary: 'Dead jobs of a topic',
        querystring: DeadQuery,
        response: { 200: ListResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.query.topic);
      const page = await service.list({
        topic: request.query.topic,
        state: 'dead',
        limit: request.query.limit ?? 100,
        cursor: request.query.cursor,
      });
      return { jobs: page.jobs.map(toWireJob), next: page.next };
    },
  );

  app.post(
    '/v1/dead/redrive',
    {
      schema: {
        tags: ['dead'],
        summary: 'Redrive dead jobs: the oldest `limit` of a topic, or the given ids',
        body: RedriveRequest,
        response: { 200: CountResponse, ...errorResponses },
      },
    },
    async (request) => {
      const body = request.body;
      if ('topic' in body) {
        authorizeTopic(request, body.topic);
        return { count: await service.redrive({ topic: body.topic, limit: body.limit ?? 1000 }) };
      }
      for (const id of body.ids) await authorizeJob(request, service, id);
      return { count: await service.redrive({ ids: body.ids }) };
    },
  );
}
