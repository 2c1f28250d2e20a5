import type { EpochMs } from '../core/clock.js';
import { invalid } from '../core/errors.js';
import { validateTopic } from '../core/job-input.js';
import { LIMITS } from '../core/limits.js';
import type { DueHistogramQuery } from '../store/due-histogram.js';

export interface DueHistogramInput {
  topic?: string | undefined;
  /** Epoch ms. @defaultValue now */
  from?: number | undefined;
  /** Epoch ms, exclusive. @defaultValue from + 1 h */
  to?: number | undefined;
  /** @defaultValue 60 000 (a minute) */
  bucketMs?: number | undefined;
}

export const DEFAULT_DUE_HISTOGRAM = { spanMs: 3_600_000, bucketMs: 60_000 } as const;

/** Checks a histogram request and fills its defaults; errors name the field. */
export function normalizeDueHistogram(input: DueHistogramInput, now: EpochMs): DueHistogramQuery {
  const from = input.from ?? now;
  const bucketMs = input.bucketMs ?? DEFAULT_DUE_HISTOGRAM.bucketMs;
  const to = input.to ?? from + DEFAULT_DUE_HISTOGRAM.spanMs;
  if (!Number.isSafeInteger(from) || from < 0) throw invalid('from', 'must be epoch milliseconds');
  if (!Number.isSafeInteger(to) || to <= from) throw invalid('to', 'must be epoch milliseconds after from');
  if (!Number.isSafeInteger(bucketMs) || bucketMs < LIMITS.dueHistogramMinBucketMs) {
    throw invalid('bucketMs', `must be an integer of at least ${LIMITS.dueHistogramMinBucketMs} ms`);
  }
  if (Math.ceil((to - from) / bucketMs) > LIMITS.dueHistogramMaxBuckets) {
    throw invalid('bucketMs', `(to − from) / bucketMs must be at most ${LIMITS.dueHistogramMaxBuckets} buckets`);
  }
  return { from, to, bucketMs, ...(input.topic !== undefined ? { topic: validateTopic(input.topic) } : {}) };
}
