import type { EpochMs } from './clock.js';
import { parseDurationList, parseDurationMs } from './duration.js';
import { DelayqError, invalid } from './errors.js';
import type { Backoff, NewJob, RetryPolicy } from './job.js';
import { CONTROL_CHARS_RE, GROUP_RE, ID_RE, LIMITS, PUSH_ID_RE, TOPIC_RE } from './limits.js';
import { spreadOffsetMs } from './spread.js';
import { normalizeOnExists, type OnExists } from './push-on-exists.js';
import { normalizeDedup } from './push-dedup.js';
import { hasUtcOffset, parseLocalDateTime, validateTimeZone } from './time-zone.js';

/** A push as a caller writes it: every field but `topic` optional; times relative or absolute. */
export interface PushInput {
  id?: string | undefined;
  topic: string;
  tag?: string | null | undefined;
  bizKey?: string | null | undefined;
  body?: unknown;
  /** Delay from arrival, ms (or a duration text such as "30m"). Exclusive with runAt. */
  delayMs?: number | string | undefined;
  /** Absolute due time: epoch ms, an ISO-8601 text with offset, or a local one with `timeZone`. Exclusive with delayMs. */
  runAt?: number | string | undefined;
  /** IANA zone of a `runAt` text written without offset (`"2026-12-01T10:00"` + `"Asia/Shanghai"`). */
  timeZone?: string | undefined;
  priority?: number | undefined;
  ttrMs?: number | string | undefined;
  ttlMs?: number | string | null | undefined;
  retry?: RetryInput | string | undefined;
  /** Spread the due time over [runAt, runAt + spreadMs), by the id (core/spread.ts); an integer of ms. */
  spreadMs?: number | undefined;
  /** What to do when a waiting job of the topic holds the id: keep (the default), replace or extend. */
  onExists?: OnExists | undefined;
  /** With onExists "extend": the latest due time is this long after the job's first push (ms or a text). */
  maxWaitMs?: number | string | null | undefined;
  /** Within dedupWindowMs of the first push of the topic with this key, a push answers that job (push-dedup.ts). */
  dedupKey?: string | null | undefined;
  /** How long the first push with dedupKey holds it: ms (1 ms to 30 days) or a duration text. */
  dedupWindowMs?: number | string | null | undefined;
  /** The job's group (a tenant, a merchant): a topic's groupConcurrency bounds each group's reserved jobs. */
  group?: string | null | undefined;
}

export interface RetryInput {
  maxAttempts?: number | undefined;
  /** `"4m,10m,1h"` (a list), or an object. */
  backoff?: BackoffInput | string | undefined;
}

export type BackoffInput =
  | { type: 'fixed'; delayMs: number | string }
  | { type: 'exponential'; delayMs: number | string; factor?: number; maxDelayMs?: number | string }
  | { type: 'list'; delays: string | Array<number | string> };

/** What a push leaves out is taken from here (config.ts's `jobs` options: DEFAULT_JOB_DEFAULTS there). */
export interface JobDefaults {
  ttrMs: number;
  retry: RetryPolicy;
  /** Largest body, bytes of JSON text. */
  bodyMaxBytes: number;
}

export function validateTopic(topic: unknown, field = 'topic'): string {
  if (typeof topic !== 'string' || !TOPIC_RE.test(topic)) {
    throw invalid(
      field,
      `must be 1–${LIMITS.topicMaxLength} characters of letters, digits, ".", "_", "-", ":" starting with a letter or digit`,
    );
  }
  return topic;
}

/** A job's group: the characters of a push's id, at least one; absent or null is no group. */
export function validateGroup(value: unknown, field = 'group'): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !GROUP_RE.test(value)) {
    throw invalid(field, `must be 1–${LIMITS.groupMaxLength} characters of letters, digits and . _ - : @ + =`);
  }
  return value;
}

/** The id of a job to look up or act on: any id a job may have, those delayq made (with `~`) included. */
export function validateJobId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string' || !ID_RE.test(id)) {
    throw invalid(field, `must be 1–${LIMITS.idMaxLength} characters of letters, digits and . _ - : @ + = ~`);
  }
  return id;
}

/**
 * The id a caller gives its push: `~` is refused, so the ids delayq makes (a schedule's ticks) cannot be
 * taken by a caller who pushes them first.
 */
export function validatePushId(id: unknown, field = 'id'): string {
  if (typeof id === 'string' && id.includes(LIMITS.reservedIdChar) && ID_RE.test(id)) {
    throw invalid(field, `must not contain "${LIMITS.reservedIdChar}": it is kept for the ids of schedule ticks`);
  }
  if (typeof id !== 'string' || id === '' || !PUSH_ID_RE.test(id)) {
    throw invalid(field, `must be 1–${LIMITS.idMaxLength} characters of letters, digits and . _ - : @ + =`);
  }
  return id;
}

function label(value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (value.length > LIMITS.labelMaxLength) throw invalid(field, `must be at most ${LIMITS.labelMaxLength} characters`);
  if (CONTROL_CHARS_RE.test(value)) throw invalid(field, 'must not contain control characters');
  return value;
}

function integerIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(field, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A priority as push takes it (lower first). */
export function validatePriority(value: unknown, field = 'priority'): number {
  return integerIn(value, field, LIMITS.priorityMin, LIMITS.priorityMax);
}

/** A delay as push's `delayMs` takes it (ms or a text such as "30s"), checked against the longest delay. */
export function delayIn(value: unknown, field: string): number {
  return durationIn(value, field, 0, LIMITS.maxDelayMs);
}

function durationIn(value: unknown, field: string, min: number, max: number): number {
  const ms = parseDurationMs(value, field);
  if (ms < min || ms > max) throw invalid(field, `must be from ${min} to ${max} ms`);
  return ms;
}

/** A runAt text: with its own offset, or local time in `timeZone` (docs/schedules.md has the DST rule). */
function parseRunAtText(value: string, timeZone: string | undefined): number {
  if (!/^\d{4}-\d\d-\d\d/.test(value)) throw invalid('runAt', 'must be epoch milliseconds or an ISO-8601 date-time');
  if (timeZone !== undefined) {
    const zone = validateTimeZone(timeZone);
    if (hasUtcOffset(value)) throw invalid('timeZone', 'give it only with a runAt written without offset');
    return parseLocalDateTime(value, zone, 'runAt');
  }
  if (!hasUtcOffset(value)) {
    throw invalid('runAt', 'has no UTC offset: add one ("2026-12-01T10:00+08:00", "…Z") or give timeZone');
  }
  return Date.parse(value);
}

function parseRunAt(value: number | string, now: EpochMs, timeZone: string | undefined): EpochMs {
  if (typeof value === 'number' && timeZone !== undefined) {
    throw invalid('timeZone', 'give it only with a runAt text written without offset');
  }
  const at = typeof value === 'number' ? value : parseRunAtText(value, timeZone);
  if (!Number.isFinite(at) || !Number.isInteger(at)) {
    throw invalid('runAt', 'must be epoch milliseconds (an integer) or an ISO-8601 date-time');
  }
  if (at - now > LIMITS.maxDelayMs) throw invalid('runAt', 'is more than 10 years away');
  if (now - at > LIMITS.pastRunAtToleranceMs) throw invalid('runAt', 'is more than a year in the past');
  // A past time is kept (the job is ready at once): past-due jobs keep their order, earliest first.
  return at;
}

export function normalizeBackoff(input: BackoffInput | string, field: string): Backoff {
  if (typeof input === 'string') {
    return { type: 'list', delaysMs: boundedList(parseDurationList(input, field), field) };
  }
  if (typeof input !== 'object' || input === null) throw invalid(field, 'must be an object or a list text');
  switch (input.type) {
    case 'fixed':
      return { type: 'fixed', delayMs: durationIn(input.delayMs, `${field}.delayMs`, 0, LIMITS.maxDelayMs) };
    case 'exponential': {
      const delayMs = durationIn(input.delayMs, `${field}.delayMs`, 1, LIMITS.maxDelayMs);
      const factor = input.factor ?? 2;
      if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1 || factor > 100) {
        throw invalid(`${field}.factor`, 'must be a number from 1 to 100');
      }
      const maxDelayMs =
        input.maxDelayMs === undefined
          ? LIMITS.maxDelayMs
          : durationIn(input.maxDelayMs, `${field}.maxDelayMs`, delayMs, LIMITS.maxDelayMs);
      return { type: 'exponential', delayMs, factor, maxDelayMs };
    }
    case 'list':
      return {
        type: 'list',
        delaysMs: boundedList(parseDurationList(input.delays, `${field}.delays`), `${field}.delays`),
      };
    default:
      throw invalid(`${field}.type`, 'must be "fixed", "exponential" or "list"');
  }
}

function boundedList(delaysMs: number[], field: string): number[] {
  if (delaysMs.length > LIMITS.backoffListMax) throw invalid(field, `must have at most ${LIMITS.backoffListMax} steps`);
  delaysMs.forEach((ms, i) => {
    if (ms > LIMITS.maxDelayMs) throw invalid(`${field}[${i}]`, 'must be at most 10 years');
  });
  return delaysMs;
}

/**
 * The retry policy of a push. A list schedule alone (`"4m,10m,10m,1h"`) means one retry per step,
 * so maxAttempts defaults to steps + 1.
 */
export function normalizeRetry(input: RetryInput | string | undefined, defaults: RetryPolicy): RetryPolicy {
  if (input === undefined) return defaults;
  if (typeof input === 'string') {
    const backoff = normalizeBackoff(input, 'retry');
    return { maxAttempts: (backoff as { delaysMs: number[] }).delaysMs.length + 1, backoff };
  }
  if (typeof input !== 'object' || input === null) throw invalid('retry', 'must be an object or a schedule text');
  const backoff = input.backoff === undefined ? defaults.backoff : normalizeBackoff(input.backoff, 'retry.backoff');
  const implied =
    backoff.type === 'list' && input.backoff !== undefined ? backoff.delaysMs.length + 1 : defaults.maxAttempts;
  const maxAttempts =
    input.maxAttempts === undefined
      ? implied
      : integerIn(input.maxAttempts, 'retry.maxAttempts', 1, LIMITS.maxAttemptsMax);
  return { maxAttempts, backoff };
}

export interface NormalizeContext {
  now: EpochMs;
  defaults: JobDefaults;
  /** Called with `now` (a module function, not a per-push closure). */
  newId: (now: EpochMs) => string;
  /** The ids are delayq's own (a schedule's ticks): they may hold the reserved `~`. */
  ownIds?: boolean | undefined;
}

/** Deepest nesting of arrays/objects a job body may have: far beyond real payloads, far below stack limits. */
export const BODY_MAX_DEPTH = 256;

/** Nesting depth of a JSON value, walked without recursion (the value may be hostile). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > BODY_MAX_DEPTH) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The body as JSON text. JSON.parse accepts nesting far deeper than JSON.stringify (or the response
 * serializer) can recurse, so a hostile body (`[[[[…]]]]` 20 000 deep) is refused here, not left to crash
 * a request later with a RangeError. Nesting d takes at least 2d characters of JSON, so a short text
 * needs no walk (the walk allocated more than the rest of a small push's validation).
 */
function bodyText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value === undefined ? null : value);
  } catch (err) {
    if (err instanceof RangeError)
      throw depthOf(value) > BODY_MAX_DEPTH ? tooDeep() : invalid('body', 'is nested too deeply');
    throw invalid('body', 'must be a JSON value');
  }
  if (text === undefined) throw invalid('body', 'must be a JSON value');
  if (text.length > 2 * BODY_MAX_DEPTH && depthOf(value) > BODY_MAX_DEPTH) throw tooDeep();
  return text;
}

const tooDeep = (): DelayqError => invalid('body', `is nested more than ${BODY_MAX_DEPTH} levels deep`);

/** Turns a caller's push into a NewJob, or throws E_VALIDATION / E_BODY_TOO_LARGE naming the field. */
export function normalizePush(input: PushInput, ctx: NormalizeContext): NewJob {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('job', 'must be a JSON object');
  }
  const topic = validateTopic(input.topic);
  const id =
    input.id === undefined || input.id === ''
      ? ctx.newId(ctx.now)
      : ctx.ownIds
        ? validateJobId(input.id)
        : validatePushId(input.id);

  if (input.delayMs !== undefined && input.runAt !== undefined) {
    throw invalid('runAt', 'give delayMs or runAt, not both');
  }
  let runAt = ctx.now;
  if (input.delayMs !== undefined) {
    runAt = ctx.now + durationIn(input.delayMs, 'delayMs', 0, LIMITS.maxDelayMs);
  } else if (input.runAt !== undefined) {
    if (typeof input.runAt !== 'number' && typeof input.runAt !== 'string') {
      throw invalid('runAt', 'must be epoch milliseconds or an ISO-8601 date-time');
    }
    runAt = parseRunAt(input.runAt, ctx.now, input.timeZone);
  }
  if (input.timeZone !== undefined && input.runAt === undefined) throw invalid('timeZone', 'applies only to runAt');

  const body = bodyText(input.body);
  const bodyBytes = Buffer.byteLength(body);
  if (bodyBytes > ctx.defaults.bodyMaxBytes) {
    throw new DelayqError(
      'E_BODY_TOO_LARGE',
      `body: ${bodyBytes} bytes of JSON is over the limit of ${ctx.defaults.bodyMaxBytes}`,
      { field: 'body' },
    );
  }

  const dedup = normalizeDedup(input.dedupKey, input.dedupWindowMs);
  const onExists = normalizeOnExists(input.onExists, input.maxWaitMs, Math.max(runAt - ctx.now, 0));
  // After the maxWaitMs check, which weighs the delay asked for: the offset of the id is not the caller's.
  if (input.spreadMs !== undefined)
    runAt += spreadOffsetMs(id, integerIn(input.spreadMs, 'spreadMs', 0, LIMITS.spreadMaxMs));
  const job: NewJob = {
    id,
    topic,
    tag: label(input.tag, 'tag'),
    bizKey: label(input.bizKey, 'bizKey'),
    body,
    runAt,
    priority:
      input.priority === undefined ? 0 : integerIn(input.priority, 'priority', LIMITS.priorityMin, LIMITS.priorityMax),
    ttrMs:
      input.ttrMs === undefined
        ? ctx.defaults.ttrMs
        : durationIn(input.ttrMs, 'ttrMs', LIMITS.ttrMinMs, LIMITS.ttrMaxMs),
    ttlMs:
      input.ttlMs === undefined || input.ttlMs === null ? null : durationIn(input.ttlMs, 'ttlMs', 1, LIMITS.maxDelayMs),
    retry: normalizeRetry(input.retry, ctx.defaults.retry),
  };
  const group = validateGroup(input.group);
  if (group !== undefined) job.group = group;
  if (onExists) job.onExists = onExists;
  if (dedup) job.dedup = dedup;
  return job;
}
