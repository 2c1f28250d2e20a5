import type { DelayqError } from '../core/errors.js';
import { statusOf } from './error-handler.js';

/**
 * The HTTP status of a refusal on the seed-compatible endpoints. The seeds answer every outcome with 200 and
 * a `success: false` body, and so do we, except for access refusals (no or bad token, topic not allowed,
 * rate limited): those are delayq additions the seeds never had, and proxies, clients and monitoring rely
 * on 401/403/429 to tell them apart from an ordinary "no such job".
 */
const ACCESS_CODES = new Set(['E_UNAUTHORIZED', 'E_FORBIDDEN', 'E_RATE_LIMITED']);

export function compatStatus(error: DelayqError): number {
  return ACCESS_CODES.has(error.code) ? statusOf(error) : 200;
}
