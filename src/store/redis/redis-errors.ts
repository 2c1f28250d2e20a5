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

/**
 * register-node.lua's 'LAYOUT <n>' refusal as an E_CONFIG naming the prefix (jobs written in another
 * record layout would be misread); any other error is returned as it is.
 */
export function layoutRefusal(err: unknown, prefix: string, expected: number): unknown {
  const layout = /LAYOUT (\d+)/.exec(err instanceof Error ? err.message : String(err))?.[1];
  if (!layout) return err;
  return new DelayqError(
    'E_CONFIG',
    `redis: prefix "${prefix}" holds jobs in record layout ${layout}, and this delayq reads layout ${expected}. ` +
      'Run the delayq that wrote them until they are done, or restore them from the journal into an empty prefix.',
    { field: 'redis.prefix', details: { layout: Number(layout), expected } },
  );
}
