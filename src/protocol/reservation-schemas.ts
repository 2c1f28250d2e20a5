/** Reserving jobs and settling a reservation on the wire: reserve, touch, finish, fail, release. */
import { Type, type Static } from 'typebox';
import { LIMITS } from '../core/limits.js';
import { StructuredError } from './outcome-schemas.js';
import { Duration, EpochMs, JobSchema, Nullable, Token, Topic } from './schemas.js';

const strict = { additionalProperties: false } as const;

export const RESERVE_MAX_COUNT = LIMITS.reserveMaxCount;
export const RESERVE_MAX_WAIT_MS = LIMITS.reserveMaxWaitMs;

export const ReserveRequest = Type.Object(
  {
    topics: Type.Array(Topic, { minItems: 1, maxItems: LIMITS.reserveMaxTopics }),
    count: Type.Optional(
      Type.Integer({ minimum: 1, maximum: RESERVE_MAX_COUNT, description: 'jobs wanted; default 1' }),
    ),
    waitMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: RESERVE_MAX_WAIT_MS,
        description: 'long-poll: wait this long for a job; default 0',
      }),
    ),
    ttrMs: Type.Optional(
      Type.Integer({ minimum: LIMITS.ttrMinMs, maximum: LIMITS.ttrMaxMs, description: 'overrides the jobs’ TTR' }),
    ),
  },
  strict,
);
export type ReserveRequest = Static<typeof ReserveRequest>;
export const ReservationSchema = Type.Object({ job: JobSchema, token: Type.String(), deadlineAt: EpochMs });
export type WireReservation = Static<typeof ReservationSchema>;
export const ReserveResponse = Type.Object({ reservations: Type.Array(ReservationSchema) });
export type ReserveResponse = Static<typeof ReserveResponse>;

export const TouchRequest = Type.Object(
  { token: Token, ttrMs: Type.Optional(Type.Integer({ minimum: LIMITS.ttrMinMs, maximum: LIMITS.ttrMaxMs })) },
  strict,
);
export type TouchRequest = Static<typeof TouchRequest>;
export const TokenRequest = Type.Object({ token: Token }, strict);
export type TokenRequest = Static<typeof TokenRequest>;
export const ReleaseRequest = Type.Object(
  {
    token: Token,
    delayMs: Type.Optional({
      ...Duration,
      description:
        "delayed this long before it is ready again, as push's delayMs (absent: ready at once, in its old place)",
    }),
  },
  strict,
);
export type ReleaseRequest = Static<typeof ReleaseRequest>;
export const FailRequest = Type.Object(
  {
    token: Token,
    error: Type.Optional(
      Nullable(
        Type.Union([
          Type.String({ description: `kept on the job (cut at ${LIMITS.errorMaxLength} characters)` }),
          StructuredError,
        ]),
      ),
    ),
    retryDelayMs: Type.Optional(
      Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs, description: 'instead of the backoff' }),
    ),
    bury: Type.Optional(Type.Boolean({ description: 'bury now, whatever attempts remain' })),
  },
  strict,
);
export type FailRequest = Static<typeof FailRequest>;
export const FailResponse = Type.Object({
  job: JobSchema,
  decision: Type.Union([
    Type.Object({ action: Type.Literal('retry'), runAt: EpochMs }),
    Type.Object({ action: Type.Literal('bury') }),
  ]),
});
export type FailResponse = Static<typeof FailResponse>;
export const FinishRequest = Type.Object(
  {
    token: Token,
    result: Type.Optional(
      Type.Unknown({
        description: `any JSON value (≤ ${LIMITS.resultMaxBytes} bytes), kept with the job and shown by GET /v1/jobs/{id}`,
      }),
    ),
  },
  strict,
);
export type FinishRequest = Static<typeof FinishRequest>;
