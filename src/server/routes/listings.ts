/**
 * The due-time listing of delayed jobs and the list of reservations with their deadlines and nodes
 * (docs/job-api.md). Without a topic, a token limited to topics pages over its own topics only.
 */
import { DelayedQuery, DelayedResponse, ReservedQuery, ReservedResponse } from '../../protocol/listing-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import { toWireJob } from '../wire.js';
import { BY_DEADLINE, BY_DUE_TIME, isScoped, pageOverTopics, topicsInScope } from '../scoped-listing.js';

export function registerListingRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/delayed',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Delayed jobs by due time (next to fire first) within [from, to), paged',
        description:
          'Without a topic, a token limited to topics lists the jobs of its topics only (each page its share of the ' +
          'listing, in the same order).',
        querystring: DelayedQuery,
        response: { 200: DelayedResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, limit = 100, cursor } = request.query;
      const { principal } = request;
      if (topic !== undefined) authorizeTopic(request, topic, 'topic');
      const read = async (t: string | undefined, n: number, after: string | undefined) => {
        const { jobs, next } = await service.listings.listDue({ ...request.query, topic: t, limit: n, cursor: after });
        return { items: jobs, next };
      };
      // No topic: a token limited to topics lists its own topics' jobs only.
      const page =
        topic === undefined && isScoped(principal)
          ? await pageOverTopics(await topicsInScope(service, principal), limit, cursor, read, BY_DUE_TIME)
          : await read(topic, limit, cursor);
      return { jobs: page.items.map(toWireJob), next: page.next };
    },
  );

  app.get(
    '/v1/reserved',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Reserved jobs, earliest TTR deadline first, with the node holding each',
        description:
          'Without a topic, a token limited to topics lists the reservations of its topics only (each page its ' +
          'share of the listing, in the same order).',
        querystring: ReservedQuery,
        response: { 200: ReservedResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, limit = 100, cursor } = request.query;
      const { principal } = request;
      if (topic !== undefined) authorizeTopic(request, topic, 'topic');
      const read = async (t: string | undefined, n: number, after: string | undefined) => {
        const { reservations, next } = await service.listings.listReserved({ topic: t, limit: n, cursor: after });
        return { items: reservations, next };
      };
      const page =
        topic === undefined && isScoped(principal)
          ? await pageOverTopics(await topicsInScope(service, principal), limit, cursor, read, BY_DEADLINE)
          : await read(topic, limit, cursor);
      return {
        reservations: page.items.map((r) => ({ job: toWireJob(r.job), deadlineAt: r.deadlineAt, node: r.node })),
        next: page.next,
      };
    },
  );
}
