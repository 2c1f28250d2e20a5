import { Cron } from 'croner';
import type { EpochMs } from '../core/clock.js';
import { DelayqError, invalid } from '../core/errors.js';
import { DEFAULT_JOB_DEFAULTS } from '../config.js';
import { normalizePush, validateTopic, type JobDefaults, type PushInput } from '../core/job-input.js';
import { LIMITS } from '../core/limits.js';
import { parseDurationMs } from '../core/duration.js';
import { hasUtcOffset, parseLocalDateTime, validateTimeZone } from '../core/time-zone.js';
import { tickJobId, type JobTemplate, type MissedTickPolicy, type ScheduleDefinition } from '../core/schedule.js';

/** A schedule as a caller writes it (`PUT /v1/schedules/{name}`). */
export interface ScheduleInput {
  topic: string;
  job?: JobTemplate;
  cron?: string;
  everyMs?: number | string;
  timeZone?: string;
  startAt?: number | string | null;
  endAt?: number | string | null;
  maxFires?: number | null;
  missed?: MissedTickPolicy;
  catchUpMax?: number;
}

export const DEFAULT_CATCH_UP_MAX = 100;
const NAME_RE = new RegExp(LIMITS.scheduleNamePattern);
const TEMPLATE_FIELDS = ['body', 'tag', 'bizKey', 'priority', 'ttrMs', 'ttlMs', 'retry', 'spreadMs'] as const;

export function validateScheduleName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || !NAME_RE.test(name)) {
    throw invalid(
      field,
      `must be 1–${LIMITS.scheduleNameMaxLength} characters of letters, digits, ".", "_", "-" starting with a letter or digit`,
    );
  }
  return name;
}

/** A croner pattern (seconds allowed) in `timeZone`; E_VALIDATION naming `cron` when croner refuses it. */
export function compileCron(pattern: string, timeZone: string): Cron {
  try {
    const cron = new Cron(pattern, { timezone: timeZone, paused: true });
    cron.nextRun(new Date(0));
    return cron;
  } catch (err) {
    throw invalid('cron', `is not a valid cron pattern: ${(err as Error).message.replace(/^CronPattern: /, '')}`);
  }
}

/** The last instant a JavaScript Date holds (year 275760): later epoch ms name no time. */
const LAST_DATE_MS = 8_640_000_000_000_000;

function instant(value: number | string, timeZone: string | undefined, field: string): EpochMs {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > LAST_DATE_MS)
      throw invalid(field, 'must be epoch milliseconds or an ISO-8601 date-time');
    return value;
  }
  if (typeof value !== 'string' || !/^\d{4}-\d\d-\d\d/.test(value))
    throw invalid(field, 'must be epoch milliseconds or an ISO-8601 date-time');
  if (!hasUtcOffset(value) && timeZone === undefined) {
    throw invalid(field, 'has no UTC offset: add one ("2026-12-01T10:00+08:00", "…Z") or give timeZone');
  }
  const at = hasUtcOffset(value) ? Date.parse(value) : parseLocalDateTime(value, timeZone!, field);
  if (!Number.isFinite(at)) throw invalid(field, 'must be epoch milliseconds or an ISO-8601 date-time');
  return at;
}

/** The template as a push would see it; its errors name `job.<field>`. */
function validateTemplate(
  name: string,
  topic: string,
  template: unknown,
  defaults: JobDefaults,
  now: EpochMs,
): JobTemplate {
  if (template === undefined) return {};
  if (typeof template !== 'object' || template === null || Array.isArray(template))
    throw invalid('job', 'must be an object');
  const job: JobTemplate = {};
  for (const [key, value] of Object.entries(template)) {
    if (!(TEMPLATE_FIELDS as readonly string[]).includes(key)) {
      throw invalid(`job.${key}`, `is not a job template field (${TEMPLATE_FIELDS.join(', ')})`);
    }
    if (value !== undefined) (job as Record<string, unknown>)[key] = value;
  }
  try {
    normalizePush(
      { ...(job as PushInput), topic, id: tickJobId(name, now) },
      {
        now,
        defaults,
        newId: () => 'unused',
        ownIds: true,
      },
    );
  } catch (err) {
    if (err instanceof DelayqError && err.field !== undefined) {
      throw new DelayqError(err.code, `job.${err.message}`, { field: `job.${err.field}` });
    }
    throw err;
  }
  return job;
}

/** Turns a caller's schedule into a definition, or throws E_VALIDATION naming the field. */
export function normalizeSchedule(
  name: string,
  input: ScheduleInput,
  now: EpochMs,
  defaults: JobDefaults = DEFAULT_JOB_DEFAULTS,
): ScheduleDefinition {
  validateScheduleName(name);
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalid('schedule', 'must be a JSON object');
  const topic = validateTopic(input.topic);
  const timeZone = input.timeZone === undefined ? 'UTC' : validateTimeZone(input.timeZone);
  if ((input.cron === undefined) === (input.everyMs === undefined))
    throw invalid('cron', 'give exactly one of cron and everyMs');
  let cron: string | null = null;
  let everyMs: number | null = null;
  if (input.cron !== undefined) {
    if (typeof input.cron !== 'string' || input.cron.length > 256) throw invalid('cron', 'must be a cron pattern text');
    compileCron(input.cron, timeZone);
    cron = input.cron;
  } else {
    everyMs = parseDurationMs(input.everyMs, 'everyMs');
    if (everyMs < LIMITS.scheduleMinEveryMs || everyMs > LIMITS.maxDelayMs) {
      throw invalid('everyMs', `must be from ${LIMITS.scheduleMinEveryMs} ms to 10 years`);
    }
  }
  const startAt =
    input.startAt === undefined || input.startAt === null ? null : instant(input.startAt, input.timeZone, 'startAt');
  const endAt =
    input.endAt === undefined || input.endAt === null ? null : instant(input.endAt, input.timeZone, 'endAt');
  // As a job's runAt: a first tick further away could not be pushed as a job.
  if (startAt !== null && startAt - now > LIMITS.maxDelayMs) throw invalid('startAt', 'is more than 10 years away');
  if (startAt !== null && endAt !== null && endAt < startAt) throw invalid('endAt', 'must not be before startAt');
  const maxFires = input.maxFires === undefined || input.maxFires === null ? null : input.maxFires;
  if (maxFires !== null && (!Number.isInteger(maxFires) || maxFires < 1))
    throw invalid('maxFires', 'must be a positive integer');
  const missed = input.missed ?? 'once';
  if (!['skip', 'once', 'each'].includes(missed)) throw invalid('missed', 'must be "skip", "once" or "each"');
  const catchUpMax = input.catchUpMax ?? DEFAULT_CATCH_UP_MAX;
  if (!Number.isInteger(catchUpMax) || catchUpMax < 1 || catchUpMax > LIMITS.scheduleCatchUpMax) {
    throw invalid('catchUpMax', `must be an integer from 1 to ${LIMITS.scheduleCatchUpMax}`);
  }
  const job = validateTemplate(name, topic, input.job, defaults, now);
  return { name, topic, job, cron, everyMs, timeZone, startAt, endAt, maxFires, missed, catchUpMax };
}
