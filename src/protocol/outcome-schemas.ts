/**
 * The leaf schemas of results and retention (docs/job-api.md) that the core request schemas (push, fail,
 * get) embed: a retention, a structured error, an outcome. Imports nothing of schemas.ts, which imports these.
 */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';

const strict = { additionalProperties: false } as const;
const Keep = Type.Union([Type.Literal('none'), Type.Integer({ minimum: 0, maximum: LIMITS.retentionMaxMs })], {
  description: 'ms the ended job is kept, or "none" (deleted at once); absent: the store-wide retention',
});

export const RetentionSchema = Type.Object(
  { finished: Type.Optional(Keep), dead: Type.Optional(Keep) },
  {
    ...strict,
    description: "how long the job is kept once finished / dead (BullMQ's removeOnComplete / removeOnFail)",
  },
);
export type RetentionRequest = Static<typeof RetentionSchema>;

export const StructuredError = Type.Object(
  {
    message: Type.String({ maxLength: LIMITS.errorMaxLength }),
    code: Type.Optional(Type.String({ maxLength: LIMITS.errorCodeMaxLength })),
    details: Type.Optional(Type.Unknown({ description: `any JSON value (≤ ${LIMITS.errorDetailsMaxBytes} bytes)` })),
  },
  strict,
);

export const OutcomeSchema = Type.Object(
  {
    result: Type.Optional(
      Type.Unknown({ description: "the finish's result; absent unless the job finished with one" }),
    ),
    error: Type.Union([
      Type.Object({
        message: Type.String(),
        code: Type.Union([Type.String(), Type.Null()]),
        details: Type.Optional(Type.Unknown()),
      }),
      Type.Null(),
    ]),
    at: Type.Integer({ description: 'epoch milliseconds' }),
  },
  { description: 'what the consumer reported: a result with finish, an error with fail (the last one)' },
);
export type WireOutcome = Static<typeof OutcomeSchema>;
