import { isDelayqError, type ErrorCode } from '../core/errors.js';

/**
 * The CLI's exit codes (README, docs/cli.md): scripts branch on the class of failure, the message on
 * stderr (`delayq: E_CODE: message`) says the rest.
 */
export const EXIT = {
  ok: 0,
  /** A bug or an answer the CLI did not expect (E_INTERNAL). */
  internal: 1,
  /** Bad command line: unknown command or option, missing argument (commander's own check). */
  usage: 2,
  /** The server refused the request as invalid (E_VALIDATION, E_BODY_TOO_LARGE). */
  invalid: 3,
  /** No such job (E_NOT_FOUND). */
  notFound: 4,
  /** The job is in another state, the token is stale, or the request conflicts (E_WRONG_STATE, E_TOKEN_MISMATCH, E_CONFLICT). */
  conflict: 5,
  /** No or a wrong token, or the token may not touch that topic (E_UNAUTHORIZED, E_FORBIDDEN). */
  auth: 6,
  /** Try again later: server unreachable, store down, shutting down or rate limited. */
  unavailable: 7,
} as const;

const BY_CODE: Partial<Record<ErrorCode, number>> = {
  E_VALIDATION: EXIT.invalid,
  E_BODY_TOO_LARGE: EXIT.invalid,
  E_NOT_FOUND: EXIT.notFound,
  E_WRONG_STATE: EXIT.conflict,
  E_TOKEN_MISMATCH: EXIT.conflict,
  E_CONFLICT: EXIT.conflict,
  E_UNAUTHORIZED: EXIT.auth,
  E_FORBIDDEN: EXIT.auth,
  E_STORE_UNAVAILABLE: EXIT.unavailable,
  E_SHUTTING_DOWN: EXIT.unavailable,
  E_RATE_LIMITED: EXIT.unavailable,
};

export function exitCodeOf(err: unknown): number {
  return isDelayqError(err) ? (BY_CODE[err.code] ?? EXIT.internal) : EXIT.internal;
}
