import { SeriesQuerySchema, SeriesResponse } from '../../protocol/series-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';

/**
 * GET /v1/stats/series: store-wide figures over time per topic (docs/series.md). A token limited to topic
 * prefixes may name one of its topics, and without a topic sees only its own.
 */
export function registerStatsSeriesRoute(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/stats/series',
    {
      schema: {
        tags: ['topics'],
        summary: 'Store-wide figures over time: transitions, lateness and backlog per topic and step',
        description:
          'What every instance on the store recorded: per topic and stepMs-wide step of [from, to), the jobs each ' +
          'transition moved, the lateness p50/p99 of reserved jobs and the last backlog sample. The same answer ' +
          'from any instance. Ten-second slots are kept two hours; five-minute slots (steps that are multiples ' +
          'of 300000) 25 hours.',
        querystring: SeriesQuerySchema,
        response: { 200: SeriesResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic } = request.query;
      if (topic !== undefined) authorizeTopic(request, topic);
      return service.topics.series(request.query, (t) => mayUseTopic(request.principal, t));
    },
  );
}
