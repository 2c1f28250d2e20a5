import { StatsResponse, TopicParams, TopicStatsSchema } from '../../protocol/schemas.js';
import { DelayqError } from '../../core/errors.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import { TopicListQuery, TopicListResponse } from '../../protocol/topic-list-schemas.js';

/** Counts per topic and state. A token limited to topic prefixes sees only its topics. */
export function registerTopicRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/stats',
    {
      schema: {
        tags: ['topics'],
        summary: 'Job counts per topic and state',
        response: { 200: StatsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const topics = await service.topics.stats();
      return {
        topics: topics.filter((t) => mayUseTopic(request.principal, t.topic)),
        storeResets: service.storeNotices.resets,
      };
    },
  );

  app.get(
    '/v1/topics',
    {
      schema: {
        tags: ['topics'],
        summary: 'Topics with their counts, filtered, sorted and paged by cursor',
        description:
          'The counts of GET /v1/stats, a page at a time: filter by name (prefix, contains), by a state with jobs ' +
          '(has) or by pause; sort by name, next due time, every job or one state; `next` continues. Read from the ' +
          'same per-topic counts as GET /v1/stats. A token limited to topic prefixes sees only its topics.',
        querystring: TopicListQuery,
        response: { 200: TopicListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { limit = 50, ...query } = request.query;
      return service.topics.page({ ...query, limit }, (topic) => mayUseTopic(request.principal, topic));
    },
  );

  app.get(
    '/v1/topics/:topic/stats',
    {
      schema: {
        tags: ['topics'],
        summary: 'Job counts of one topic',
        params: TopicParams,
        response: { 200: TopicStatsSchema, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      const stats = (await service.topics.stats()).find((t) => t.topic === request.params.topic);
      if (!stats) throw new DelayqError('E_NOT_FOUND', `topic ${request.params.topic} has no jobs`);
      return stats;
    },
  );
}
