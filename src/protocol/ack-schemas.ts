/**
 * The wire contract of batch acknowledgement (`POST /v1/ack`, and the `acks` a reserve may carry): one
 * request settles many reservations, and every item gets its own outcome in the same order.
 */
import { StructuredError } from './outcome-schemas.js';
import { Type, type Static } from 'typebox';
import { JOB_STATES } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import { JobId, JobSchema, Token } from './schemas.js';
import { ReservationSchema, ReserveRequest } from './reservation-schemas.js';

const strict = { additionalProperties: false } as const;

export const ACK_OPS = ['finish', 'fail', 'release', 'touch'] as const;
export type AckOp = (typeof ACK_OPS)[number];

export const Ack = Type.Object(
  {
    id: JobId,
    token: Token,
    op: Type.Union([Type.Literal('finish'), Type.Literal('fail'), Type.Literal('release'), Type.Literal('touch')]),
    result: Type.Optional(
      Type.Unknown({
        description: `finish: any JSON value (≤ ${LIMITS.resultMaxBytes} bytes), kept with the job (docs/job-api.md)`,
      }),
    ),
    error: Type.Optional(
      Type.Union([
        Type.String({ description: `fail: kept on the job (cut at ${LIMITS.errorMaxLength} characters)` }),
        StructuredError,
      ]),
    ),
    retryDelayMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: LIMITS.maxDelayMs,
        description: 'fail: retry after this, instead of the backoff',
      }),
    ),
    bury: Type.Optional(Type.Boolean({ description: 'fail: bury now, whatever attempts remain' })),
    delayMs: Type.Optional(
      Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs, description: 'release: ready again after this delay' }),
    ),
    ttrMs: Type.Optional(
      Type.Integer({ minimum: LIMITS.ttrMinMs, maximum: LIMITS.ttrMaxMs, description: 'touch: the new TTR from now' }),
    ),
  },
  strict,
);
export type Ack = Static<typeof Ack>;

const ACKS_TEXT = `up to ${LIMITS.ackBatchMax} acknowledgements; each gets its own result, in the same order`;
export const AckList = Type.Array(Ack, { maxItems: LIMITS.ackBatchMax, description: ACKS_TEXT });

export const AckRequest = Type.Object(
  {
    acks: Type.Array(Ack, { minItems: 1, maxItems: LIMITS.ackBatchMax, description: ACKS_TEXT }),
    jobs: Type.Optional(Type.Boolean({ description: 'each ok result also carries the job; default false' })),
  },
  strict,
);
export type AckRequest = Static<typeof AckRequest>;

const AckError = Type.Object({
  code: Type.String({ description: 'a stable code from docs/errors.md (E_TOKEN_MISMATCH, E_FORBIDDEN, …)' }),
  message: Type.String(),
  field: Type.Optional(Type.String({ description: 'the request field at fault, e.g. acks[3].token' })),
});

export const AckResult = Type.Union([
  Type.Object({
    id: Type.String(),
    op: Type.String(),
    ok: Type.Literal(true),
    state: Type.Enum(JOB_STATES, { description: 'the job state after the operation' }),
    job: Type.Optional(JobSchema),
  }),
  Type.Object({ id: Type.String(), op: Type.String(), ok: Type.Literal(false), error: AckError }),
]);
export type AckResult = Static<typeof AckResult>;

export const AckResponse = Type.Object({
  results: Type.Array(AckResult, { description: 'one per ack, in the same order' }),
});
export type AckResponse = Static<typeof AckResponse>;

/** `POST /v1/reserve`: the seed shape, plus the acks of the previous batch, settled before reserving. */
export const ReserveAndAckRequest = Type.Object(
  { ...ReserveRequest.properties, acks: Type.Optional(AckList) },
  { ...strict, description: 'reserve; `acks` (optional) are settled first and answered in `acks`' },
);
export type ReserveAndAckRequest = Static<typeof ReserveAndAckRequest>;
export const ReserveAndAckResponse = Type.Object({
  reservations: Type.Array(ReservationSchema),
  acks: Type.Optional(
    Type.Array(AckResult, { description: 'present when the request carried acks: one result per ack, in order' }),
  ),
});
export type ReserveAndAckResponse = Static<typeof ReserveAndAckResponse>;
