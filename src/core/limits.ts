/** Field limits shared by the core, the HTTP schemas and the docs (docs/protocol.md). */
export const LIMITS = {
  /** Topic names: letters, digits, `.`, `_`, `-`, `:`; first character a letter or digit. */
  topicPattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$',
  topicMaxLength: 128,
  /** Job ids: letters, digits and `. _ - : @ + =`; no `/`, spaces or braces (ids appear in URLs and Redis keys). */
  idPattern: '^[A-Za-z0-9._:@+=-]{1,128}$',
  idMaxLength: 128,
  /** A push's `id`: a job id, or `""` (like leaving it out) for a generated one. */
  pushIdPattern: '^[A-Za-z0-9._:@+=-]{0,128}$',
  /** tag and bizKey: free text without control characters. */
  labelMaxLength: 256,
  priorityMin: -32768,
  priorityMax: 32767,
  /** Ten years and a little: the longest delay accepted (issue: "at least 10 years"). */
  maxDelayMs: 10 * 366 * 86_400_000,
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
  /** Schedule names: as topics, without `:` (a fired job's id is `<name>:<tick epoch ms>`). */
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
} as const;

export const TOPIC_RE = new RegExp(LIMITS.topicPattern);
export const ID_RE = new RegExp(LIMITS.idPattern);
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS_RE = /[\u0000-\u001f\u007f]/;
