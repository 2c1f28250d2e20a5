/**
 * Lateness buckets: how late after its due time a job reached a consumer, counted in fixed buckets so
 * counts kept apart (per process, per time slot) add up, and a quantile can be read from their sum. The
 * Prometheus histograms and the store-wide series (store/job-series.ts) use the same bounds.
 */

/** Upper bounds, milliseconds: 1 ms up to an hour (a scheduler promises "on time"; an hour late is an outage). */
export const LATENESS_BOUNDS_MS = [
  1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 300_000, 900_000, 3_600_000,
] as const;

/** Buckets a count array has: one per bound, and the last for anything later than an hour. */
export const LATENESS_BUCKET_COUNT = LATENESS_BOUNDS_MS.length + 1;

/** The bucket of a lateness: the first whose bound is ≥ it (as Prometheus's `le`); the last past every bound. */
export function latenessBucket(latenessMs: number): number {
  for (let i = 0; i < LATENESS_BOUNDS_MS.length; i++) if (latenessMs <= LATENESS_BOUNDS_MS[i]!) return i;
  return LATENESS_BOUNDS_MS.length;
}

/**
 * The q-quantile (0 < q ≤ 1) of bucket counts (not cumulative), by linear interpolation inside the bucket
 * that holds it, as Prometheus's histogram_quantile does; past the last bound it answers the last bound.
 * Null when the counts are all zero.
 */
export function latenessQuantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i] ?? 0;
    if (below + n >= rank && n > 0) {
      if (i >= LATENESS_BOUNDS_MS.length) return LATENESS_BOUNDS_MS[LATENESS_BOUNDS_MS.length - 1]!;
      const lower = i === 0 ? 0 : LATENESS_BOUNDS_MS[i - 1]!;
      return lower + ((LATENESS_BOUNDS_MS[i]! - lower) * (rank - below)) / n;
    }
    below += n;
  }
  return LATENESS_BOUNDS_MS[LATENESS_BOUNDS_MS.length - 1]!;
}
