import { DueHistogramQuerySchema, DueHistogramResponse } from '../../protocol/due-histogram-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { isScoped, topicsInScope } from '../scoped-listing.js';
import { errorResponses } from '../route-helpers.js';

/** GET /v1/stats/due: delayed jobs per due-time bucket, for one topic or all (a topic-limited token: all of its own). */
export function registerDueHistogramRoute(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/stats/due',
    {
      schema: {
        tags: ['topics'],
        summary: 'Delayed jobs per due-time bucket (the due-time histogram)',
        description:
          'Counts the delayed jobs whose due time (runAt) falls in each bucketMs-wide slice of [from, to), ' +
          'including jobs kept only in the journal beyond its horizon. Ready, reserved and ended jobs are not counted. ' +
          'Without a topic, a token limited to topics counts the jobs of its topics only.',
        querystring: DueHistogramQuerySchema,
        response: { 200: DueHistogramResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, ...range } = request.query;
      const { principal } = request;
      if (topic !== undefined) authorizeTopic(request, topic);
      // "All" for a token limited to topics: the sum over its topics (every topic with jobs, the journal's too).
      const result =
        topic === undefined && isScoped(principal)
          ? await service.topics.dueHistogramOf(await topicsInScope(service, principal), range)
          : await service.topics.dueHistogram(request.query);
      return {
        topic: result.topic ?? null,
        from: result.from,
        to: result.to,
        bucketMs: result.bucketMs,
        total: result.counts.reduce((sum, n) => sum + n, 0),
        buckets: result.counts.map((count, i) => ({ at: result.from + i * result.bucketMs, count })),
      };
    },
  );
}
