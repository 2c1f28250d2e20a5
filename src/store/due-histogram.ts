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
