/** The wire contract of a topic's flow-control settings (GET and PUT /v1/topics/{topic}/settings). */
import { Type, type Static } from 'typebox';
import { DEFAULT_RATE_BURST } from '../core/topic-settings.js';
import { LIMITS } from '../core/limits.js';

const strict = { additionalProperties: false } as const;

export const RateLimitSchema = Type.Object(
  {
    perSecond: Type.Number({
      minimum: LIMITS.rateMinPerSecond,
      maximum: LIMITS.rateMaxPerSecond,
      description: 'jobs handed out per second at most, over every instance on the store (0.5: one every 2 s)',
    }),
    burst: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIMITS.rateMaxBurst,
        description: `jobs that may go out back to back after a quiet spell (the bucket's size); default ${DEFAULT_RATE_BURST}`,
      }),
    ),
  },
  strict,
);

const GroupConcurrency = Type.Integer({ minimum: 1, maximum: LIMITS.groupConcurrencyMax });

export const TopicSettingsRequest = Type.Object(
  {
    rateLimit: Type.Optional(
      Type.Union([RateLimitSchema, Type.Null()], {
        description: 'the dispatch rate limit (reserve and push sinks); absent or null: none',
      }),
    ),
    groupConcurrency: Type.Optional(
      Type.Union([GroupConcurrency, Type.Null()], {
        description:
          "at most this many jobs of one group (a push's `group`) reserved at once, over every instance, " +
          'consumer and push sink; groups are served in turn. Absent or null: no bound (docs/flow-control.md)',
      }),
    ),
    groupRateLimit: Type.Optional(
      Type.Union([RateLimitSchema, Type.Null()], {
        description:
          'a rate limit for each group of the topic on its own (a token bucket per group, for reserve and push ' +
          'sinks; kept in the process on the embedded store, shared by every process on Redis); a group out of tokens ' +
          'is passed over, its jobs stay ' +
          'ready. Absent or null: none (docs/flow-control.md "A rate per group")',
      }),
    ),
  },
  { ...strict, description: "the topic's whole settings: a field left out is cleared" },
);
export type TopicSettingsRequest = Static<typeof TopicSettingsRequest>;

export const TopicSettingsResponse = Type.Object({
  topic: Type.String(),
  rateLimit: Type.Optional(
    Type.Object({ perSecond: Type.Number(), burst: Type.Integer() }, { description: 'absent: no rate limit' }),
  ),
  groupConcurrency: Type.Optional(Type.Integer({ description: "absent: no bound on a group's reserved jobs" })),
  groupRateLimit: Type.Optional(
    Type.Object(
      { perSecond: Type.Number(), burst: Type.Integer() },
      { description: "each group's own rate limit; absent: none" },
    ),
  ),
});
export type TopicSettingsResponse = Static<typeof TopicSettingsResponse>;
