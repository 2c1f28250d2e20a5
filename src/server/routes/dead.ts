/** Dead letters: list them, and redrive them (dead → ready with attempts reset) by topic or by ids. */
import { CountResponse, ListResponse, RedriveRequest } from '../../protocol/schemas.js';
import { DeadQuery } from '../../protocol/dead-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { toWireJob } from '../wire.js';
import { errorResponses, visibleIds } from '../route-helpers.js';

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
      const ids = await visibleIds(request, service, body.ids);
      return { count: ids.length ? await service.redrive({ ids }) : 0 };
    },
  );
}
