/**
 * The wire contract of the HTTP API: one TypeBox schema per request and response. The server validates
 * with them and publishes them as OpenAPI 3; the SDK and the CLI take their types from them, so the three
 * cannot drift apart. Deep rules (duration texts, 10-year limit, body size) stay in core and are checked by
 * the service, which names the field just as these schemas do.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { HISTORY_EVENTS, JOB_STATES } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import { ON_EXISTS, PUSH_OUTCOMES } from '../core/push-on-exists.js';
import { OutcomeSchema, RetentionSchema } from './outcome-schemas.js';

const strict = { additionalProperties: false } as const;

export const Topic = Type.String({
  pattern: LIMITS.topicPattern,
  description: `1–${LIMITS.topicMaxLength} letters, digits, ".", "_", "-", ":"; starts with a letter or digit`,
  examples: ['order-close'],
});
export const JobId = Type.String({
  pattern: LIMITS.idPattern,
  description: `1–${LIMITS.idMaxLength} letters, digits and . _ - : @ + = (and ~ in a schedule tick's id)`,
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

/** A spreading window (core/spread.ts); docs/flow-control.md#spreading. */
export const SpreadMs = Type.Integer({
  minimum: 0,
  maximum: LIMITS.spreadMaxMs,
  description:
    `spread the due time over [due, due + spreadMs) by a hash of the job id (the same id, the same offset), ` +
    `0–${LIMITS.spreadMaxMs} ms (a day): jobs due at one instant fire spread evenly over the window`,
});

export const PushRequest = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: LIMITS.pushIdPattern,
        maxLength: LIMITS.idMaxLength,
        description:
          `your id: 1–${LIMITS.idMaxLength} letters, digits and . _ - : @ + =; absent or "" means "generate one". ` +
          'Ids are global across topics: a push of an id a job of the same topic holds is idempotent (200, that job), ' +
          'one a job of another topic holds is 409 E_CONFLICT (prefix your ids per topic)',
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
    spreadMs: Type.Optional(SpreadMs),
    onExists: Type.Optional(
      Type.Enum(ON_EXISTS, {
        description:
          'when a job of this topic holds the id and waits (delayed or ready): "keep" it (the default), "replace" ' +
          'its body, due time and priority, or "extend" its due time to this push\'s (debounce); a job reserved ' +
          'or ended is kept (docs/flow-control.md)',
      }),
    ),
    group: Type.Optional(
      Nullable(
        Type.String({
          pattern: LIMITS.groupPattern,
          maxLength: LIMITS.groupMaxLength,
          description:
            `the job's group (a tenant, a merchant): 1–${LIMITS.groupMaxLength} letters, digits and . _ - : @ + =; ` +
            "a topic's groupConcurrency bounds each group's reserved jobs and serves groups in turn " +
            '(docs/flow-control.md "Groups"); absent or null: none',
        }),
      ),
    ),
    maxWaitMs: Type.Optional(
      Nullable(
        Type.Union([Type.Integer({ minimum: 0 }), Type.String({ minLength: 1, maxLength: 32 })], {
          description:
            'with onExists "extend": the due time never moves past this long after the job\'s first push ' +
            "(ms or a duration text); at least the push's delay",
        }),
      ),
    ),
    dedupKey: Type.Optional(
      Nullable(
        Type.String({
          description:
            `with dedupWindowMs: within that window from the topic's first push with this key, a push with it ` +
            `answers that job (outcome "duplicate", whatever its state) and makes none, whatever its id; ` +
            `1–${LIMITS.idMaxLength} letters, digits and . _ - : @ + = (docs/flow-control.md "Dedup window")`,
        }),
      ),
    ),
    dedupWindowMs: Type.Optional(
      Nullable(
        Type.Union([Type.Integer(), Type.String({ minLength: 1, maxLength: 32 })], {
          description:
            `required with dedupKey: how long the first push with the key holds it, ` +
            `1 ms to ${LIMITS.dedupWindowMaxMs} ms (30 days), ms or a duration text`,
        }),
      ),
    ),
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
  group: Type.Optional(Type.String({ description: 'absent: the job has no group' })),
});
/** A job as the API shows it: like core's Job, but `body` is the JSON value, not its text. */
export type WireJob = Static<typeof JobSchema>;

export const PushResponse = Type.Object({
  created: Type.Boolean({ description: 'false when the id existed' }),
  outcome: Type.Enum(PUSH_OUTCOMES, {
    description:
      'what the push did: "created" a job, "kept" the job holding the id, "replaced" or "extended" it ' +
      '(onExists), or answered the job holding its dedupKey inside the window ("duplicate", 200)',
  }),
  job: JobSchema,
});
export type PushResponse = Static<typeof PushResponse>;
export const PushBatchResponse = Type.Object({ results: Type.Array(PushResponse) });
export type PushBatchResponse = Static<typeof PushBatchResponse>;

export const JobResponse = Type.Object({ job: JobSchema });
export type JobResponse = Static<typeof JobResponse>;

export const HistoryEntrySchema = Type.Object({
  at: EpochMs,
  event: Type.Enum(HISTORY_EVENTS),
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

/** A run now says nothing more than its path: the body, if any, is an empty object. */
export const RunNowRequest = Type.Object({}, strict);
export type RunNowRequest = Static<typeof RunNowRequest>;

/** The cursor of the job listings (service/job-list-cursor.ts). */
export const LIST_CURSOR_TEXT = "the previous page's `next` (any other text is refused: 400 naming cursor)";
export const ListQuery = Type.Object(
  {
    topic: Type.Optional(Topic),
    state: Type.Optional(JobStateSchema),
    bizKey: Type.Optional(Type.String({ maxLength: LIMITS.labelMaxLength })),
    tag: Type.Optional(Type.String({ maxLength: LIMITS.labelMaxLength })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 512, description: LIST_CURSOR_TEXT })),
  },
  strict,
);
export type ListQuery = Static<typeof ListQuery>;
export const ListResponse = Type.Object({
  jobs: Type.Array(JobSchema),
  next: Nullable(
    Type.String({
      description:
        'the cursor of the next page; null on the last. A page may hold fewer jobs than the limit, or none, ' +
        'while next is set: the store looks at a bounded stretch of jobs per call',
    }),
  ),
});
export type ListResponse = Static<typeof ListResponse>;

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
