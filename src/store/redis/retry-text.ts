import { DEFAULT_RETRY_POLICY } from '../../config.js';
import type { RetryPolicy } from '../../core/job.js';

/**
 * A retry policy in a few bytes instead of ~90 of JSON: `f|max|delay`, `e|max|delay|factor|maxDelay`,
 * `l|max|d1,d2,…`, and '' for the default policy (most jobs). Anything else is kept as JSON, so an
 * unknown future shape still round-trips.
 */
export function encodeRetry(policy: RetryPolicy): string {
  // Most pushes share the configured default policy object: its text is made once, not per push.
  if (policy === lastPolicy) return lastText;
  const text = retryText(policy);
  lastPolicy = policy;
  lastText = text === DEFAULT_RETRY_TEXT ? '' : text;
  return lastText;
}
/** The last policy encoded and its text: an identity cache, the same answer whatever the call order. */
let lastPolicy: RetryPolicy | undefined;
let lastText = '';

function retryText(policy: RetryPolicy): string {
  const b = policy.backoff;
  switch (b.type) {
    case 'fixed':
      return `f|${policy.maxAttempts}|${b.delayMs}`;
    case 'exponential':
      return `e|${policy.maxAttempts}|${b.delayMs}|${b.factor}|${b.maxDelayMs}`;
    case 'list':
      return `l|${policy.maxAttempts}|${b.delaysMs.join(',')}`;
    default:
      return JSON.stringify(policy);
  }
}

const DEFAULT_RETRY_TEXT = retryText(DEFAULT_RETRY_POLICY);

/** A fresh copy of the default policy (a caller may change what it gets). */
function defaultRetry(): RetryPolicy {
  const { maxAttempts, backoff } = DEFAULT_RETRY_POLICY;
  return {
    maxAttempts,
    backoff: backoff.type === 'list' ? { type: 'list', delaysMs: [...backoff.delaysMs] } : { ...backoff },
  };
}

export function decodeRetry(text: string): RetryPolicy {
  if (text === '') return defaultRetry();
  const [type, max, ...rest] = text.split('|');
  const maxAttempts = Number(max);
  switch (type) {
    case 'f':
      return { maxAttempts, backoff: { type: 'fixed', delayMs: Number(rest[0]) } };
    case 'e':
      return {
        maxAttempts,
        backoff: {
          type: 'exponential',
          delayMs: Number(rest[0]),
          factor: Number(rest[1]),
          maxDelayMs: Number(rest[2]),
        },
      };
    case 'l':
      return { maxAttempts, backoff: { type: 'list', delaysMs: rest[0] ? rest[0].split(',').map(Number) : [] } };
    default:
      return JSON.parse(text) as RetryPolicy;
  }
}
