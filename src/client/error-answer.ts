/** An error answer of the API → the same DelayqError the server threw, so callers branch on `err.code`. */
import { DelayqError, ERROR_CODES, type ErrorCode } from '../core/errors.js';

const KNOWN_CODES = new Set<string>(ERROR_CODES);

/** An error answer → the DelayqError the server threw (or E_INTERNAL for an answer that is not ours). */
export function errorFromResponse(status: number, parsed: unknown, text: string): DelayqError {
  const error = (
    parsed as { error?: { code?: unknown; message?: unknown; field?: unknown; details?: unknown } } | undefined
  )?.error;
  if (error && typeof error.code === 'string' && KNOWN_CODES.has(error.code)) {
    return new DelayqError(error.code as ErrorCode, typeof error.message === 'string' ? error.message : error.code, {
      field: typeof error.field === 'string' ? error.field : undefined,
      details:
        typeof error.details === 'object' && error.details !== null
          ? (error.details as Record<string, unknown>)
          : undefined,
    });
  }
  const code: ErrorCode = status === 503 ? 'E_STORE_UNAVAILABLE' : 'E_INTERNAL';
  return new DelayqError(code, `HTTP ${status}: ${text.slice(0, 200)}`, { details: { status } });
}
