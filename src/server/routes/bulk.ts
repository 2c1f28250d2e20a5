/** Bulk operations by selector (docs/job-api.md): a bounded slice per call, audited like clear-all. */
import { BulkRequest, BulkResponse } from '../../protocol/bulk-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeAllTopics, authorizeTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';

/** A topic-scoped token may act on its topics only: a bulk selector without a topic needs an all-topics token. */
function authorizeTopicOrAll(request: Parameters<typeof authorizeTopic>[0], topic: string | undefined, field: string) {
  if (topic === undefined) authorizeAllTopics(request);
  else authorizeTopic(request, topic, field);
}

export function registerBulkRoute(app: DelayqApp, { service }: RouteContext): void {
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
      const result = await service.bulk.apply({ ...rest, selector });
      return { ...result, dryRun: rest.dryRun ?? false };
    },
  );
}
