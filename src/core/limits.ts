/** Field limits shared by the core, the HTTP schemas and the docs (docs/protocol.md). */

/** A topic is a beanstalkd tube too (docs/beanstalkd.md), and beanstalkd takes tube names of up to 200 bytes. */
const TOPIC_MAX_LENGTH = 200;

export const LIMITS = {
  /** Topic names: letters, digits, `.`, `_`, `-`, `:`; first character a letter or digit. */
  topicPattern: `^[A-Za-z0-9][A-Za-z0-9._:-]{0,${TOPIC_MAX_LENGTH - 1}}$`,
  topicMaxLength: TOPIC_MAX_LENGTH,
  /**
   * Job ids: letters, digits and `. _ - : @ + =`, and `~` in the ids delayq makes itself (a schedule's tick
   * `<name>~<tick>`); no `/`, spaces or braces (ids appear in URLs and Redis keys).
   */
  idPattern: '^[A-Za-z0-9._:@+=~-]{1,128}$',
  idMaxLength: 128,
  /**
   * A push's `id`: a job id without `~`, or `""` (like leaving it out) for a generated one. `~` stays out
   * of every caller's ids, so no caller can take the id of a tick before its schedule pushes it.
   */
  pushIdPattern: '^[A-Za-z0-9._:@+=-]{0,128}$',
  /** The character only ids delayq makes may hold (pushIdPattern leaves it out). */
  reservedIdChar: '~',
  /** tag and bizKey: free text without control characters. */
  labelMaxLength: 256,
  priorityMin: -32768,
  priorityMax: 32767,
  /** Ten years and a little: the longest delay accepted (issue: "at least 10 years"). */
  maxDelayMs: 10 * 366 * 86_400_000,
  /** The widest spreading window a push or a schedule may ask for (core/spread.ts): a day. */
  spreadMaxMs: 86_400_000,
  ttrMinMs: 100,
  ttrMaxMs: 7 * 86_400_000,
  maxAttemptsMax: 1000,
  backoffListMax: 100,
  errorMaxLength: 2000,
  /** Jobs one reserve call may take. */
  reserveMaxCount: 100,
  /** Topics one reserve call may name. */
  reserveMaxTopics: 100,
  /** Longest long-poll of one reserve call. */
  reserveMaxWaitMs: 60_000,
  /** Most buckets one due-time histogram read answers (GET /v1/stats/due). */
  dueHistogramMaxBuckets: 1000,
  /** Narrowest due-time histogram bucket, ms. */
  dueHistogramMinBucketMs: 1000,
  /** Most steps one read of the figures over time answers (GET /v1/stats/series). */
  seriesMaxSteps: 1000,
  /** Reservations a gRPC reserve stream may have asked for and not yet received. */
  reserveStreamCreditMax: 1000,
  /** Acknowledgements in one `POST /v1/ack` (or carried by one reserve). */
  ackBatchMax: 1000,
  /** Jobs in one `POST /v1/jobs/batch`. */
  pushBatchMax: 1000,
  /** JSON text of the jobs the SDK gathers into one batch push: well under the server's smallest body limit. */
  pushCoalesceMaxBytes: 512 * 1024,
  /** How far in the past an absolute runAt may lie before it is refused as a mistake (it runs at once). */
  pastRunAtToleranceMs: 366 * 86_400_000,
  /** Schedule names: as topics, without `:` (a fired job's id is `<name>~<tick epoch ms>`, schedule.ts). */
  scheduleNamePattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
  scheduleNameMaxLength: 100,
  /** The shortest interval schedule, and the upper bound of a schedule's `catchUpMax` (missed: "each"). */
  scheduleMinEveryMs: 1000,
  scheduleCatchUpMax: 1000,
  /** Fires one `GET /v1/schedules/{name}/fires` lists on each side (next ticks, latest fired jobs). */
  scheduleFiresMax: 50,
  /** A finish's `result`: bytes of JSON text (kept beside the job for its retention, so small). */
  resultMaxBytes: 64 * 1024,
  /** A fail's structured `error`: `code` length, and bytes of JSON text of its `details`. */
  errorCodeMaxLength: 128,
  errorDetailsMaxBytes: 16 * 1024,
  /** Jobs one bulk call looks at (cancel, reschedule, redrive, delete by selector); a cursor continues. */
  bulkMaxPerCall: 1000,
  /** Page size of the due-time and reserved listings. */
  listingMaxPage: 1000,
  /** Bytes an event stream may have written and its client not yet read: a slower follower is cut off and resumes. */
  eventStreamMaxBufferedBytes: 1024 * 1024,
  /** Longest retention a job or topic may ask for (it only shortens the store-wide retention). */
  retentionMaxMs: 366 * 86_400_000,
  /** A topic's dispatch rate limit (docs/flow-control.md): fewest and most jobs per second, and the largest burst. */
  rateMinPerSecond: 0.000001,
  rateMaxPerSecond: 1_000_000,
  rateMaxBurst: 1_000_000,
  /**
   * A push's `dedupKey` (docs/flow-control.md "Dedup window"): the characters of a caller's job id, 1–128, no `~`.
   */
  dedupKeyPattern: '^[A-Za-z0-9._:@+=-]{1,128}$',
  /** The longest dedup window a push may open: 30 days (the claim is kept that long, whatever the job). */
  dedupWindowMaxMs: 30 * 86_400_000,
  /**
   * A job's group (docs/flow-control.md "Groups"): the characters of a push's id (a tenant or merchant id
   * fits), so a group is safe in URLs, keys and SQL alike.
   */
  groupPattern: '^[A-Za-z0-9._:@+=-]{1,128}$',
  groupMaxLength: 128,
  /** A topic's groupConcurrency: the most jobs of one group reserved at once. */
  groupConcurrencyMax: 100_000,
} as const;

export const TOPIC_RE = new RegExp(LIMITS.topicPattern);
export const ID_RE = new RegExp(LIMITS.idPattern);
export const PUSH_ID_RE = new RegExp(LIMITS.pushIdPattern);
export const DEDUP_KEY_RE = new RegExp(LIMITS.dedupKeyPattern);
export const GROUP_RE = new RegExp(LIMITS.groupPattern);
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS_RE = /[\u0000-\u001f\u007f]/;
