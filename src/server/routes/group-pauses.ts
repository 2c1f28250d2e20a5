import { GroupParams, GroupPauseResponse, GroupPausesResponse } from '../../protocol/group-pause-schemas.js';
import { PauseTopicRequest, TopicParams } from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';

/**
 * Pause and resume one group of a topic: reserve and delivery pass over its jobs (they stay ready) while the
 * topic's other jobs go on, in every process on the store. On a store that keeps groups (docs/flow-control.md).
 */
export function registerGroupPauseRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/topics/:topic/groups/:group/pause',
    {
      schema: {
        tags: ['topics'],
        summary:
          "Pause one group of a topic: its jobs are not reserved nor delivered until it is resumed or delayMs has passed; the topic's other jobs go on",
        params: GroupParams,
        body: PauseTopicRequest,
        response: { 200: GroupPauseResponse, ...errorResponses },
      },
      // The body is optional, as a topic's pause.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const { topic, group } = request.params;
      authorizeTopic(request, topic);
      const pause = await service.topics.pauseGroup(topic, group, { delayMs: request.body.delayMs });
      return { topic, group, ...pause };
    },
  );

  app.post(
    '/v1/topics/:topic/groups/:group/resume',
    {
      schema: {
        tags: ['topics'],
        summary: 'Resume a paused group (a group that was not paused answers paused: false all the same)',
        params: GroupParams,
        response: { 200: GroupPauseResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, group } = request.params;
      authorizeTopic(request, topic);
      await service.topics.resumeGroup(topic, group);
      return { topic, group, paused: false, pausedUntil: null };
    },
  );

  app.get(
    '/v1/topics/:topic/groups/paused',
    {
      schema: {
        tags: ['topics'],
        summary: "A topic's paused groups, each with when its pause ends (null: until resumed)",
        params: TopicParams,
        response: { 200: GroupPausesResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic } = request.params;
      authorizeTopic(request, topic);
      return { topic, groups: await service.topics.groupPauses(topic) };
    },
  );
}
