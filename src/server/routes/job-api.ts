/**
 * The job API of issue 23 (docs/job-api.md): bulk operations by selector (audited like clear-all), the
 * due-time listing of delayed jobs and the list of reservations with their deadlines and nodes.
 */
import {
  BulkRequest,
  BulkResponse,
  DelayedQuery,
  DelayedResponse,
  ReservedQuery,
  ReservedResponse,
} from '../../protocol/job-api-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeAllTopics, authorizeTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import { toWireJob } from '../wire.js';

/** A topic-scoped token may act on its topics only: a query without a topic needs an all-topics token. */
function authorizeTopicOrAll(request: Parameters<typeof authorizeTopic>[0], topic: string | undefined, field: string) {
  if (topic === undefined) authorizeAllTopics(request);
  else authorizeTopic(request, topic, field);
}

export function registerJobApiRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/jobs/bulk',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancel, reschedule, redrive or delete the jobs a selector picks, a bounded slice per call',
        description:
          'Looks at up to `limit` jobs matching the selector (in id order) and applies the action to those in a ' +
          'state it allows; `next` continues. `dryRun` only counts. Audited.',
        body: BulkRequest,
        response: { 200: BulkResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { selector, ...rest } = request.body;
      authorizeTopicOrAll(request, selector.topic, 'selector.topic');
      const result = await service.jobApi.bulk({ ...rest, selector });
      return { ...result, dryRun: rest.dryRun ?? false };
    },
  );

  app.get(
    '/v1/delayed',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Delayed jobs by due time (next to fire first) within [from, to), paged',
        querystring: DelayedQuery,
        response: { 200: DelayedResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopicOrAll(request, request.query.topic, 'topic');
      const page = await service.jobApi.listDue(request.query);
      return { jobs: page.jobs.map(toWireJob), next: page.next };
    },
  );

  app.get(
    '/v1/reserved',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Reserved jobs, earliest TTR deadline first, with the node holding each',
        querystring: ReservedQuery,
        response: { 200: ReservedResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopicOrAll(request, request.query.topic, 'topic');
      const page = await service.jobApi.listReserved(request.query);
      return {
        reservations: page.reservations.map((r) => ({ job: toWireJob(r.job), deadlineAt: r.deadlineAt, node: r.node })),
        next: page.next,
      };
    },
  );
}
