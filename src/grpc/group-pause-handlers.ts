/**
 * PauseGroup, ResumeGroup and ListPausedGroups: the HTTP routes of routes/group-pauses.ts over the same service,
 * schemas and topic scopes.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { Type } from 'typebox';
import { GroupParams } from '../protocol/group-pause-schemas.js';
import { PauseTopicRequest, Topic } from '../protocol/schemas.js';
import { authorizeTopic } from '../server/auth.js';
import { validate } from './convert.js';
import { bodyOf, unary, type HandlerContext } from './unary-handlers.js';

const TopicOnly = Type.Object({ topic: Topic }, { additionalProperties: false });

const groupOf = (request: Record<string, unknown>) =>
  validate<GroupParams>(GroupParams, { topic: request['topic'] ?? '', group: request['group'] ?? '' });

/** Unset rather than null: proto3 has no null. */
const untilOf = (pausedUntil: number | null) => (pausedUntil === null ? {} : { pausedUntil });

export function groupPauseHandlers(context: HandlerContext): UntypedServiceImplementation {
  const { service } = context;
  return {
    PauseGroup: unary(context, 'PauseGroup', async (request: Record<string, unknown>, caller) => {
      const { topic, group } = groupOf(request);
      const body = validate<{ delayMs?: number }>(PauseTopicRequest, bodyOf(request, ['delayMs']));
      authorizeTopic(caller, topic);
      const pause = await service.topics.pauseGroup(topic, group, { delayMs: body.delayMs });
      return { topic, group, paused: pause.paused, ...untilOf(pause.pausedUntil) };
    }),

    ResumeGroup: unary(context, 'ResumeGroup', async (request: Record<string, unknown>, caller) => {
      const { topic, group } = groupOf(request);
      authorizeTopic(caller, topic);
      await service.topics.resumeGroup(topic, group);
      return { topic, group, paused: false };
    }),

    ListPausedGroups: unary(context, 'ListPausedGroups', async (request: Record<string, unknown>, caller) => {
      const { topic } = validate<{ topic: string }>(TopicOnly, { topic: request['topic'] ?? '' });
      authorizeTopic(caller, topic);
      const groups = await service.topics.groupPauses(topic);
      return { topic, groups: groups.map((g) => ({ group: g.group, ...untilOf(g.pausedUntil) })) };
    }),
  };
}
