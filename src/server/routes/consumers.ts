import { ConsumerListQuery, ConsumerListResponse } from '../../protocol/consumer-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';

/**
 * Who consumes which topics now, on every process of the store: long-polls while they wait, gRPC reserve
 * streams, beanstalkd workers and push sinks (docs/consumers.md). A token limited to topic prefixes sees
 * the consumers of its topics, with only its topics listed.
 */
export function registerConsumerRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/consumers',
    {
      schema: {
        tags: ['reservations'],
        summary: 'Who consumes which topics now, on every process of the store',
        description:
          'A long-poll is listed while its reserve waits, a gRPC Reserve stream while it is open, a beanstalkd ' +
          'connection once it reserved until it closes, a delivery binding while its pump runs. Other processes ' +
          'publish theirs every 2 s (and within 0.1 s of a change); a process that stops is gone within 6 s.',
        querystring: ConsumerListQuery,
        response: { 200: ConsumerListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, kind, limit = 1000 } = request.query;
      if (topic !== undefined) authorizeTopic(request, topic);
      const visible = (t: string) => mayUseTopic(request.principal, t);
      const matching = (await service.consumers.list())
        .map((c) => ({ ...c, topics: c.topics.filter(visible) }))
        .filter((c) => c.topics.length > 0)
        .filter((c) => (topic === undefined || c.topics.includes(topic)) && (kind === undefined || c.kind === kind));
      return { consumers: matching.slice(0, limit), total: matching.length };
    },
  );
}
