/**
 * The wire contract of the HTTP API: one TypeBox schema per request and response. The server validates
 * with them and publishes them as OpenAPI 3; the SDK and the CLI take their types from them, so the three
 * cannot drift apart. Deep rules (duration texts, 10-year limit, body size) stay in core and are checked by
 * the service, which names the field just as these schemas do.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { JOB_EVENTS, JOB_STATES } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import { OutcomeSchema, RetentionSchema, StructuredError } from './outcome-schemas.js';

const strict = { additionalProperties: false } as const;

export const Topic = Type.String({
  pattern: LIMITS.topicPattern,
  description: `1–${LIMITS.topicMaxLength} letters, digits, ".", "_", "-", ":"; starts with a letter or digit`,
  examples: ['order-close'],
});
export const JobId = Type.String({
  pattern: LIMITS.idPattern,
  description: `1–${LIMITS.idMaxLength} letters, digits and . _ - : @ + =`,
});
export const Token = Type.String({ minLength: 1, maxLength: 64, description: 'the reservation token from reserve' });
export const EpochMs = Type.Integer({ description: 'epoch milliseconds' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
/** A duration: milliseconds, or a text such as "500ms", "30s", "4m", "1h", "2d". */
export const Duration = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 32 })], {
  description: 'milliseconds, or a text such as "30s", "4m", "1h"',
});
export const Label = Nullable(Type.String({ maxLength: LIMITS.labelMaxLength }));
export const JobStateSchema = Type.Enum(JOB_STATES);

const BackoffInput = Type.Union([
  Type.String({ description: 'a list schedule, e.g. "4m,10m,10m,1h"' }),
  Type.Object({ type: Type.Literal('fixed'), delayMs: Duration }, strict),
  Type.Object(
    {
      type: Type.Literal('exponential'),
      delayMs: Duration,
      factor: Type.Optional(Type.Number({ minimum: 1, maximum: 100 })),
      maxDelayMs: Type.Optional(Duration),
    },
    strict,
  ),
  Type.Object(
    {
      type: Type.Literal('list'),
      delays: Type.Union([Type.String(), Type.Array(Duration, { maxItems: LIMITS.backoffListMax })]),
    },
    strict,
  ),
]);
export const RetryInput = Type.Union([
  Type.String({ description: 'a list schedule: one retry per step, e.g. "4m,10m,10m,1h"' }),
  Type.Object(
    {
      maxAttempts: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.maxAttemptsMax })),
      backoff: Type.Optional(BackoffInput),
    },
    strict,
  ),
]);

/** An absolute due time; a text without offset needs `timeZone` (docs/schedules.md: wall-clock time and DST). */
export const RunAt = Type.Union(
  [
    EpochMs,
    Type.String({
      description: 'ISO-8601 date-time with offset ("2026-12-01T10:00+08:00"), or without one when timeZone is given',
    }),
  ],
  {
    description:
      'absolute due time, at most 10 years ahead; a time in the past (up to a year) is kept as given and the ' +
      'job is ready at once, served before later-due jobs of its priority',
  },
);
export const TimeZone = Type.String({
  maxLength: 64,
  description: 'IANA time zone of a runAt written without offset, e.g. "Asia/Shanghai"',
});

export const PushRequest = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: LIMITS.pushIdPattern,
        maxLength: LIMITS.idMaxLength,
        description: `your id (idempotent push): 1–${LIMITS.idMaxLength} letters, digits and . _ - : @ + =; absent or "" means "generate one"`,
      }),
    ),
    topic: Topic,
    tag: Type.Optional(Label),
    bizKey: Type.Optional(Label),
    body: Type.Optional(Type.Unknown({ description: 'any JSON value' })),
    delayMs: Type.Optional(Duration),
    runAt: Type.Optional(RunAt),
    timeZone: Type.Optional(TimeZone),
    priority: Type.Optional(Type.Integer({ minimum: LIMITS.priorityMin, maximum: LIMITS.priorityMax })),
    ttrMs: Type.Optional(Duration),
    ttlMs: Type.Optional(Nullable(Duration)),
    retry: Type.Optional(RetryInput),
    retention: Type.Optional(RetentionSchema),
  },
  strict,
);
export type PushRequest = Static<typeof PushRequest>;

export const PushBatchRequest = Type.Object(
  { jobs: Type.Array(PushRequest, { minItems: 1, maxItems: LIMITS.pushBatchMax }) },
  strict,
);
export type PushBatchRequest = Static<typeof PushBatchRequest>;

const Backoff = Type.Union([
  Type.Object({ type: Type.Literal('fixed'), delayMs: Type.Integer() }),
  Type.Object({
    type: Type.Literal('exponential'),
    delayMs: Type.Integer(),
    factor: Type.Number(),
    maxDelayMs: Type.Integer(),
  }),
  Type.Object({ type: Type.Literal('list'), delaysMs: Type.Array(Type.Integer()) }),
]);

export const JobSchema = Type.Object({
  id: Type.String(),
  topic: Type.String(),
  tag: Nullable(Type.String()),
  bizKey: Nullable(Type.String()),
  body: Type.Unknown({ description: 'the JSON value pushed' }),
  state: JobStateSchema,
  runAt: EpochMs,
  priority: Type.Integer(),
  ttrMs: Type.Integer(),
  ttlMs: Nullable(Type.Integer()),
  retry: Type.Object({ maxAttempts: Type.Integer(), backoff: Backoff }),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  createdAt: EpochMs,
  readyAt: Nullable(EpochMs),
  reservedAt: Nullable(EpochMs),
  finishedAt: Nullable(EpochMs),
  deadlineAt: Nullable(EpochMs),
});
/** A job as the API shows it: like core's Job, but `body` is the JSON value, not its text. */
export type WireJob = Static<typeof JobSchema>;

export const PushResponse = Type.Object({
  created: Type.Boolean({ description: 'false when the id existed' }),
  job: JobSchema,
});
export type PushResponse = Static<typeof PushResponse>;
export const PushBatchResponse = Type.Object({ results: Type.Array(PushResponse) });
export type PushBatchResponse = Static<typeof PushBatchResponse>;

export const JobResponse = Type.Object({ job: JobSchema });
export type JobResponse = Static<typeof JobResponse>;

export const HistoryEntrySchema = Type.Object({
  at: EpochMs,
  event: Type.Enum(JOB_EVENTS),
  state: JobStateSchema,
  attempt: Type.Integer(),
  node: Type.String(),
  reason: Nullable(Type.String()),
});
export type WireHistoryEntry = Static<typeof HistoryEntrySchema>;
export const HistoryResponse = Type.Object({
  history: Type.Array(HistoryEntrySchema),
  outcome: Type.Optional(OutcomeSchema),
});
export type HistoryResponse = Static<typeof HistoryResponse>;

export const JobIdParams = Type.Object({ id: JobId }, strict);
export const GetJobQuery = Type.Object(
  { history: Type.Optional(Type.Boolean({ description: 'include the history' })) },
  strict,
);
export const GetJobResponse = Type.Object({
  job: JobSchema,
  outcome: Type.Optional(OutcomeSchema),
  history: Type.Optional(Type.Array(HistoryEntrySchema)),
});
export type GetJobResponse = Static<typeof GetJobResponse>;

export const CancelResponse = Type.Object(
  {
    job: JobSchema,
    dispatched: Type.Boolean({
      description:
        'true: the job was reserved (out with a consumer, or being delivered by a sink) when it was cancelled, ' +
        'so its current attempt may have run and a compensation may be due; false: it was waiting (delayed or ' +
        'ready) and this attempt never went out',
    }),
    attempts: Type.Integer({
      minimum: 0,
      description: 'How many times the job was handed out (reserved), this one included; the same as job.attempts',
    }),
  },
  { description: 'The cancelled job, and whether it had already gone out' },
);
export type CancelResponse = Static<typeof CancelResponse>;

export const CancelRequest = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: LIMITS.errorMaxLength })) },
  strict,
);
export type CancelRequest = Static<typeof CancelRequest>;

export const RescheduleRequest = Type.Object(
  { delayMs: Type.Optional(Duration), runAt: Type.Optional(RunAt), timeZone: Type.Optional(TimeZone) },
  strict,
);
export type RescheduleRequest = Static<typeof RescheduleRequest>;

export const ListQuery = Type.Object(
  {
    topic: Type.Optional(Topic),
    state: Type.Optional(JobStateSchema),
    bizKey: Type.Optional(Type.String({ maxLength: LIMITS.labelMaxLength })),
    tag: Type.Optional(Type.String({ maxLength: LIMITS.labelMaxLength })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  strict,
);
export type ListQuery = Static<typeof ListQuery>;
export const ListResponse = Type.Object({ jobs: Type.Array(JobSchema), next: Nullable(Type.String()) });
export type ListResponse = Static<typeof ListResponse>;

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

export const RedriveRequest = Type.Union([
  Type.Object(
    { topic: Topic, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1000 })) },
    strict,
  ),
  Type.Object({ ids: Type.Array(JobId, { minItems: 1, maxItems: 1000 }) }, strict),
]);
export type RedriveRequest = Static<typeof RedriveRequest>;
export const CountResponse = Type.Object({ count: Type.Integer() });
export type CountResponse = Static<typeof CountResponse>;

export const PurgeRequest = Type.Object(
  { before: EpochMs, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })) },
  strict,
);
export type PurgeRequest = Static<typeof PurgeRequest>;

export const TopicStatsSchema = Type.Object({
  topic: Type.String(),
  counts: Type.Object(
    Object.fromEntries(JOB_STATES.map((s) => [s, Type.Integer()])) as Record<
      (typeof JOB_STATES)[number],
      ReturnType<typeof Type.Integer>
    >,
  ),
  nextDueAt: Nullable(EpochMs),
  paused: Type.Boolean({ description: 'reserve and delivery skip the topic (POST /v1/topics/{topic}/pause)' }),
  pausedUntil: Nullable({
    ...EpochMs,
    description: 'when a timed pause ends by itself; null: not paused, or until resumed',
  }),
});
export const PauseTopicRequest = Type.Object(
  {
    delayMs: Type.Optional({
      ...Duration,
      description: "resume by itself after this long, as push's delayMs (absent: until resumed)",
    }),
  },
  strict,
);
export type PauseTopicRequest = Static<typeof PauseTopicRequest>;
export const TopicPauseResponse = Type.Object({
  topic: Type.String(),
  paused: Type.Boolean(),
  pausedUntil: Nullable(EpochMs),
});
export type TopicPauseResponse = Static<typeof TopicPauseResponse>;
export type WireTopicStats = Static<typeof TopicStatsSchema>;
const StoreResets = Type.Integer({
  minimum: 0,
  description:
    'times this process noticed the store came back empty since it started (a Redis restart without ' +
    'persistence, FLUSHALL, a failover to an empty replica): see RELIABILITY.md',
});
export const StatsResponse = Type.Object({ topics: Type.Array(TopicStatsSchema), storeResets: StoreResets });
export type StatsResponse = Static<typeof StatsResponse>;
export const TopicParams = Type.Object({ topic: Topic }, strict);

export const HealthResponse = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('unavailable')]),
  reason: Type.Optional(Type.String({ description: 'why the status is degraded' })),
  store: Type.Optional(Type.String()),
  waitingConsumers: Type.Optional(Type.Integer()),
  storeResets: Type.Optional(StoreResets),
  storeWriteLosses: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'times this process noticed that a failover lost writes the store had acknowledged (Redis replicates asynchronously); /ready answers degraded for 10 minutes after each: see RELIABILITY.md',
    }),
  ),
});
export type HealthResponse = Static<typeof HealthResponse>;

/** Every error answer of the REST API. */
export const ErrorResponse = Type.Object({
  error: Type.Object({
    code: Type.String({ description: 'a stable code from docs/errors.md' }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'the request field at fault, as a dotted path' })),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});
export type ErrorResponse = Static<typeof ErrorResponse>;
