/** The wire contract of pausing one group of a topic (POST /v1/topics/{topic}/groups/{group}/pause, …/resume). */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import { EpochMs, Nullable, Topic } from './schemas.js';

const Group = Type.String({
  pattern: LIMITS.groupPattern,
  maxLength: LIMITS.groupMaxLength,
  description: `a job's group: 1–${LIMITS.groupMaxLength} letters, digits and . _ - : @ + =`,
  examples: ['merchant-42'],
});

export const GroupParams = Type.Object({ topic: Topic, group: Group }, { additionalProperties: false });
export type GroupParams = Static<typeof GroupParams>;

export const GroupPauseResponse = Type.Object({
  topic: Type.String(),
  group: Type.String(),
  paused: Type.Boolean(),
  pausedUntil: Nullable(EpochMs),
});
export type GroupPauseResponse = Static<typeof GroupPauseResponse>;

export const GroupPausesResponse = Type.Object({
  topic: Type.String(),
  groups: Type.Array(
    Type.Object({
      group: Type.String(),
      pausedUntil: Nullable({ ...EpochMs, description: 'when the pause ends by itself; null: until resumed' }),
    }),
    { description: "the topic's paused groups, by name" },
  ),
});
export type GroupPausesResponse = Static<typeof GroupPausesResponse>;
