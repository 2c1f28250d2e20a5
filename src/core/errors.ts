/**
 * The one catalogue of error codes. Every failure that crosses a boundary (store → service → HTTP → SDK)
 * is a DelayqError with one of these codes; `server/error-handler.ts` is the only place that maps a code
 * to an HTTP status. docs/errors.md lists them for users.
 */
export const ERROR_CODES = [
  'E_VALIDATION', // a request field is missing, malformed or out of range (names the field)
  'E_BODY_TOO_LARGE', // the job body or the request exceeds the configured size limit
  'E_NOT_FOUND', // no job with that id (or it was purged)
  'E_WRONG_STATE', // the job exists but is not in a state that allows the operation
  'E_TOKEN_MISMATCH', // the reservation token is stale: the job was reserved again since, under another token
  'E_CONFLICT', // the request conflicts with existing data
  'E_UNAUTHORIZED', // no or unknown bearer token
  'E_FORBIDDEN', // the token may not act on this topic
  'E_RATE_LIMITED', // too many requests for this token
  'E_STORE_UNAVAILABLE', // the storage is unreachable or too slow; nothing was changed
  'E_SHUTTING_DOWN', // the service is closing and accepts no new work
  'E_SINK_FAILED', // a delivery target refused or timed out
  'E_CONFIG', // the configuration is invalid (start-up only)
  'E_INTERNAL', // a bug: reported, never expected
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface DelayqErrorOptions {
  /** The request field at fault, as a dotted path (`retry.backoff.delayMs`). */
  field?: string | undefined;
  cause?: unknown;
  /** Extra machine-readable facts, e.g. the job's current state for E_WRONG_STATE. */
  details?: Record<string, unknown> | undefined;
}

export class DelayqError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: DelayqErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DelayqError';
    this.code = code;
    this.field = options.field;
    this.details = options.details;
  }

  toJSON(): { code: ErrorCode; message: string; field?: string; details?: Record<string, unknown> } {
    return {
      code: this.code,
      message: this.message,
      ...(this.field === undefined ? {} : { field: this.field }),
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }
}

export function isDelayqError(err: unknown): err is DelayqError {
  return err instanceof DelayqError;
}

/** run's value, or the DelayqError it threw (a per-item answer of a batch); any other error is thrown on. */
export function settled<T>(run: () => T): T | DelayqError {
  try {
    return run();
  } catch (err) {
    if (isDelayqError(err)) return err;
    throw err;
  }
}

/** Shorthand for the most common error: a request field that is wrong. */
export function invalid(field: string, message: string): DelayqError {
  return new DelayqError('E_VALIDATION', `${field}: ${message}`, { field });
}
