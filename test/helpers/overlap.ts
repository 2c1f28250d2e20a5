/** A span a job of group `key` was out (reserved, not yet finished), on one counter or clock. */
export interface Interval {
  key: string;
  from: number;
  to: number;
}

/**
 * The most intervals of `key` open at one instant. An interval ending at t is closed before one starting at t:
 * times are whole ms, and a finish and the next reserve of its group often fall in the same one.
 */
export function maxOverlap(intervals: readonly Interval[], key: string): number {
  const edges = intervals
    .filter((i) => i.key === key)
    .flatMap((i) => [
      [i.from, 1],
      [i.to, -1],
    ])
    .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step!;
    most = Math.max(most, open);
  }
  return most;
}
