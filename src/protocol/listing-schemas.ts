/** The due-time and reserved listings on the wire (GET /v1/delayed, GET /v1/reserved, docs/job-api.md). */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import { EpochMs, JobSchema, Nullable, Topic } from './schemas.js';

const strict = { additionalProperties: false } as const;

const Page = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.listingMaxPage, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
};

export const DelayedQuery = Type.Object(
  {
    topic: Type.Optional(Topic),
    from: Type.Optional(Type.Integer({ minimum: 0, description: 'due from (inclusive); default 0' })),
    to: Type.Optional(Type.Integer({ minimum: 0, description: 'due before (exclusive); default 10 years ahead' })),
    ...Page,
  },
  strict,
);
export type DelayedQuery = Static<typeof DelayedQuery>;
export const DelayedResponse = Type.Object({ jobs: Type.Array(JobSchema), next: Nullable(Type.String()) });
export type DelayedResponse = Static<typeof DelayedResponse>;

export const ReservedQuery = Type.Object({ topic: Type.Optional(Topic), ...Page }, strict);
export type ReservedQuery = Static<typeof ReservedQuery>;
export const ReservedResponse = Type.Object({
  reservations: Type.Array(
    Type.Object({
      job: JobSchema,
      deadlineAt: EpochMs,
      node: Nullable(Type.String({ description: 'the delayq process that made the reservation' })),
    }),
  ),
  next: Nullable(Type.String()),
});
export type ReservedResponse = Static<typeof ReservedResponse>;
