import { PauseTopicRequest, TopicParams, TopicPauseResponse } from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';

/** Pause and resume a topic: reserve and delivery skip a paused topic's jobs, in every process on the store. */
export function registerTopicPauseRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/topics/:topic/pause',
    {
      schema: {
        tags: ['topics'],
        summary: 'Pause a topic: its jobs are not reserved nor delivered until it is resumed or delayMs has passed',
        params: TopicParams,
        body: PauseTopicRequest,
        response: { 200: TopicPauseResponse, ...errorResponses },
      },
      // The body is optional: `curl -X POST …/pause` pauses until resumed.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      const pause = await service.topics.pause(request.params.topic, { delayMs: request.body.delayMs });
      return { topic: request.params.topic, ...pause };
    },
  );

  app.post(
    '/v1/topics/:topic/resume',
    {
      schema: {
        tags: ['topics'],
        summary: 'Resume a paused topic (a topic that was not paused answers paused: false all the same)',
        params: TopicParams,
        response: { 200: TopicPauseResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      await service.topics.resume(request.params.topic);
      return { topic: request.params.topic, paused: false, pausedUntil: null };
    },
  );
}
