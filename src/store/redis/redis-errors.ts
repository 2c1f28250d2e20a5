import { DelayqError, isDelayqError } from '../../core/errors.js';

/** A Lua runtime error is a bug (E_INTERNAL); anything else from the client means Redis is not serving. */
export function toStoreError(err: unknown): DelayqError {
  if (isDelayqError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/user_script|Error running script|ERR .*script/i.test(message) && !/NOSCRIPT|BUSY/.test(message)) {
    return new DelayqError('E_INTERNAL', `Redis store script failed: ${message}`, { cause: err });
  }
  return unavailable(err);
}

export function unavailable(err: unknown): DelayqError {
  const message = err instanceof Error ? err.message : String(err);
  return new DelayqError('E_STORE_UNAVAILABLE', `Redis is unavailable: ${message}`, { cause: err });
}
