/**
 * What a consumer reports when it ends a reservation (seed 001's result feedback): a finish's `result`
 * (any JSON value) or a fail's structured `error`. Both are kept beside the job for its retention.
 */
import type { EpochMs } from './clock.js';
import { invalid } from './errors.js';
import { CONTROL_CHARS_RE, LIMITS } from './limits.js';

/** A fail's error as the API takes it: a text, or a message with a machine-readable code and details. */
export interface JobError {
  message: string;
  code: string | null;
  /** JSON text of any value, or null. */
  details: string | null;
}

/** What the store keeps for a job: the last outcome reported with a live reservation token. */
export interface JobOutcome {
  /** JSON text of the finish's result; present only once the job finished with the reporting token. */
  result: string | null;
  error: JobError | null;
  /** When it was reported. */
  at: EpochMs;
}

/** What a consumer reports (before the store's finish, retry or bury it goes with). */
export interface NewOutcome {
  result: string | null;
  error: JobError | null;
}

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A finish's `result` → its JSON text (null when absent), refused when over LIMITS.resultMaxBytes. */
export function normalizeResult(result: unknown, field = 'result'): string | null {
  if (result === undefined) return null;
  const text = JSON.stringify(result);
  if (text === undefined) throw invalid(field, 'must be a JSON value');
  if (byteLength(text) > LIMITS.resultMaxBytes)
    throw invalid(field, `${byteLength(text)} bytes of JSON is over the limit of ${LIMITS.resultMaxBytes}`);
  return text;
}

export type ErrorInput = string | null | { message: string; code?: string | undefined; details?: unknown };

/** A fail's `error` (a text or an object) → the structured error, or null when absent. */
export function normalizeError(error: ErrorInput | undefined, field = 'error'): JobError | null {
  if (error === undefined || error === null) return null;
  if (typeof error === 'string') return { message: error.slice(0, LIMITS.errorMaxLength), code: null, details: null };
  if (typeof error !== 'object' || typeof error.message !== 'string')
    throw invalid(`${field}.message`, 'must be a text');
  const code = error.code ?? null;
  if (
    code !== null &&
    (typeof code !== 'string' || code.length > LIMITS.errorCodeMaxLength || CONTROL_CHARS_RE.test(code))
  )
    throw invalid(`${field}.code`, `must be a text of at most ${LIMITS.errorCodeMaxLength} characters`);
  let details: string | null = null;
  if (error.details !== undefined) {
    details = JSON.stringify(error.details) ?? null;
    if (details !== null && byteLength(details) > LIMITS.errorDetailsMaxBytes)
      throw invalid(`${field}.details`, `over the limit of ${LIMITS.errorDetailsMaxBytes} bytes of JSON`);
  }
  return { message: error.message.slice(0, LIMITS.errorMaxLength), code, details };
}

/**
 * How long a job is kept once it ended, by how it ended (BullMQ's removeOnComplete / removeOnFail): ms
 * after finishedAt, 0 = keep none, null = the store-wide retention. It can only shorten that retention.
 */
export interface Retention {
  finishedMs: number | null;
  deadMs: number | null;
}

export interface RetentionInput {
  finished?: number | 'none' | null | undefined;
  dead?: number | 'none' | null | undefined;
}

/** A retention as the API takes it (`"none"` or ms per ending) → Retention; null when it says nothing. */
export function normalizeRetention(input: RetentionInput | undefined, field = 'retention'): Retention | null {
  if (input === undefined || input === null) return null;
  const one = (value: number | 'none' | null | undefined, name: string): number | null => {
    if (value === undefined || value === null) return null;
    if (value === 'none') return 0;
    if (!Number.isInteger(value) || value < 0 || value > LIMITS.retentionMaxMs)
      throw invalid(`${field}.${name}`, `must be "none" or ms from 0 to ${LIMITS.retentionMaxMs}`);
    return value;
  };
  const retention = { finishedMs: one(input.finished, 'finished'), deadMs: one(input.dead, 'dead') };
  return retention.finishedMs === null && retention.deadMs === null ? null : retention;
}
