import type { EpochMs } from '../core/clock.js';

/**
 * The due-time histogram read (docs/protocol.md, GET /v1/stats/due): how many delayed jobs come due in
 * each `bucketMs`-wide slice of [from, to), for one topic or all. Bucket i counts runAt in
 * [from + i·bucketMs, from + (i+1)·bucketMs); the last bucket may be cut short by `to`.
 */
export interface DueHistogramQuery {
  topic?: string | undefined;
  from: EpochMs;
  to: EpochMs;
  bucketMs: number;
}

/** One count per bucket, in order. */
export type DueCounts = number[];

export function bucketCount(query: DueHistogramQuery): number {
  return Math.ceil((query.to - query.from) / query.bucketMs);
}

/** Adds `more` into `into` bucket by bucket (stores that read partitions or tiers separately). */
export function addCounts(into: DueCounts, more: readonly number[]): DueCounts {
  for (let i = 0; i < more.length && i < into.length; i++) into[i]! += more[i]!;
  return into;
}

/** Rows of (bucket index, count) from a GROUP BY into the dense array. */
export function countsFromRows(
  query: DueHistogramQuery,
  rows: readonly { b: number | string; n: number | string }[],
): DueCounts {
  const counts = new Array<number>(bucketCount(query)).fill(0);
  for (const row of rows) {
    const b = Number(row.b);
    if (b >= 0 && b < counts.length) counts[b]! += Number(row.n);
  }
  return counts;
}

/** A bucket as the whole counter units it holds, [firstUnit, endUnit) (none when firstUnit ≥ endUnit), in ms [lo, hi). */
export interface BucketSpan {
  bucket: number;
  lo: number;
  hi: number;
  firstUnit: number;
  endUnit: number;
}

/**
 * The buckets of `query` against counters kept per `unitMs` (a minute, an hour): each bucket's whole units come
 * from the counters, and the ranges [lo, firstUnit·unitMs) and [endUnit·unitMs, hi) an unaligned edge leaves, or
 * the whole bucket when it holds no whole unit, from the jobs.
 */
export function bucketSpans(query: DueHistogramQuery, unitMs: number): BucketSpan[] {
  return Array.from({ length: bucketCount(query) }, (_, bucket) => {
    const lo = query.from + bucket * query.bucketMs;
    const hi = Math.min(lo + query.bucketMs, query.to);
    return { bucket, lo, hi, firstUnit: Math.ceil(lo / unitMs), endUnit: Math.floor(hi / unitMs) };
  });
}
