/**
 * GetTopicSettings and PutTopicSettings: the HTTP routes of routes/topic-settings.ts over the same service,
 * schemas and topic scopes.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { Type } from 'typebox';
import type { TopicSettings } from '../core/topic-settings.js';
import { Topic } from '../protocol/schemas.js';
import { TopicSettingsRequest } from '../protocol/topic-settings-schemas.js';
import { authorizeTopic } from '../server/auth.js';
import { validate } from './convert.js';
import { bodyOf, unary, type HandlerContext } from './unary-handlers.js';

const TopicOnly = Type.Object({ topic: Topic }, { additionalProperties: false });

const answerOf = (topic: string, settings: TopicSettings) => ({ topic, ...settings });

export function topicSettingsHandlers(context: HandlerContext): UntypedServiceImplementation {
  const { service } = context;
  return {
    GetTopicSettings: unary(context, 'GetTopicSettings', async (request: Record<string, unknown>, caller) => {
      const { topic } = validate<{ topic: string }>(TopicOnly, { topic: request['topic'] ?? '' });
      authorizeTopic(caller, topic);
      return answerOf(topic, await service.topics.settings(topic));
    }),

    PutTopicSettings: unary(context, 'PutTopicSettings', async (request: Record<string, unknown>, caller) => {
      const { topic } = validate<{ topic: string }>(TopicOnly, { topic: request['topic'] ?? '' });
      const rate = request['rateLimit'] as Record<string, unknown> | null | undefined;
      const groups = request['groupConcurrency'] as number | null | undefined;
      const groupRate = request['groupRateLimit'] as Record<string, unknown> | null | undefined;
      const body = validate<TopicSettingsRequest>(TopicSettingsRequest, {
        ...(rate ? { rateLimit: bodyOf(rate, ['perSecond', 'burst']) } : {}),
        ...(groups !== undefined && groups !== null ? { groupConcurrency: groups } : {}),
        ...(groupRate ? { groupRateLimit: bodyOf(groupRate, ['perSecond', 'burst']) } : {}),
      });
      authorizeTopic(caller, topic);
      return answerOf(topic, await service.topics.putSettings(topic, body));
    }),
  };
}
