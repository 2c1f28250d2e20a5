/**
 * Upsert and debounce (docs/flow-control.md): what a push does when a job of its topic already holds its id
 * and still waits (delayed or ready). `keep` leaves that job as it is (an idempotent push); `replace` gives it
 * the push's body, due time and priority; `extend` moves its due time to the push's (now + delay), never past
 * `maxWaitMs` after the job was first pushed (its createdAt). A job reserved or ended is always kept.
 */
import type { EpochMs } from './clock.js';
import { parseDurationMs } from './duration.js';
import { invalid } from './errors.js';
import { LIMITS } from './limits.js';

export const ON_EXISTS = ['keep', 'replace', 'extend'] as const;
export type OnExists = (typeof ON_EXISTS)[number];

/** A push's rule for a waiting job holding its id; a NewJob without one keeps that job. */
export type ExistingJobRule = { mode: 'replace' } | { mode: 'extend'; maxWaitMs: number | null };

/** What a push did, as its answer says. */
export const PUSH_OUTCOMES = ['created', 'kept', 'replaced', 'extended', 'duplicate'] as const;
export type PushOutcome = (typeof PUSH_OUTCOMES)[number];

/** What a store's push did to a waiting job holding the id, beside `created: false`. */
export type PushChange = 'replaced' | 'extended';

/**
 * The push's `onExists` and `maxWaitMs` → its rule (undefined: keep), or E_VALIDATION naming the field.
 * `delayMs` is how far the push's due time lies from now: a maxWaitMs below it could never be honoured.
 */
export function normalizeOnExists(onExists: unknown, maxWaitMs: unknown, delayMs: number): ExistingJobRule | undefined {
  if (onExists !== undefined && !ON_EXISTS.includes(onExists as OnExists))
    throw invalid('onExists', `must be one of ${ON_EXISTS.map((m) => `"${m}"`).join(', ')}`);
  if (maxWaitMs !== undefined && maxWaitMs !== null && onExists !== 'extend')
    throw invalid('maxWaitMs', 'applies only with onExists "extend"');
  if (onExists === undefined || onExists === 'keep') return undefined;
  if (onExists === 'replace') return { mode: 'replace' };
  if (maxWaitMs === undefined || maxWaitMs === null) return { mode: 'extend', maxWaitMs: null };
  const ms = parseDurationMs(maxWaitMs, 'maxWaitMs');
  if (ms < 0 || ms > LIMITS.maxDelayMs) throw invalid('maxWaitMs', `must be from 0 to ${LIMITS.maxDelayMs} ms`);
  if (ms < delayMs) throw invalid('maxWaitMs', `must be at least the push's delay (${delayMs} ms)`);
  return { mode: 'extend', maxWaitMs: ms };
}

/**
 * The due time a waiting job takes from a push with this rule: the push's own runAt, for extend capped at
 * maxWaitMs after the job's first push.
 */
export function upsertRunAt(rule: ExistingJobRule, pushRunAt: EpochMs, createdAt: EpochMs): EpochMs {
  if (rule.mode === 'extend' && rule.maxWaitMs !== null) return Math.min(pushRunAt, createdAt + rule.maxWaitMs);
  return pushRunAt;
}

/** The answer's outcome of a store's push result. */
export function pushOutcomeOf(result: {
  created: boolean;
  change?: PushChange | undefined;
  duplicate?: true | undefined;
}): PushOutcome {
  if (result.created) return 'created';
  return result.duplicate ? 'duplicate' : (result.change ?? 'kept');
}
