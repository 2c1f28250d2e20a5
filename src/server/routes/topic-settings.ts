import { TopicParams } from '../../protocol/schemas.js';
import { TopicSettingsRequest, TopicSettingsResponse } from '../../protocol/topic-settings-schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';

/** A topic's flow-control settings (docs/flow-control.md), followed by every process on the store. */
export function registerTopicSettingsRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/v1/topics/:topic/settings',
    {
      schema: {
        tags: ['topics'],
        summary: "A topic's flow-control settings (a topic without any answers only its name)",
        params: TopicParams,
        response: { 200: TopicSettingsResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      return { topic: request.params.topic, ...(await service.topics.settings(request.params.topic)) };
    },
  );

  app.put(
    '/v1/topics/:topic/settings',
    {
      schema: {
        tags: ['topics'],
        summary: "Set a topic's flow-control settings (the dispatch rate limit), for every instance on the store",
        params: TopicParams,
        body: TopicSettingsRequest,
        response: { 200: TopicSettingsResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      return { topic: request.params.topic, ...(await service.topics.putSettings(request.params.topic, request.body)) };
    },
  );
}
