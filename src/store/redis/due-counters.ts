/**
 * The due-time counters of the Redis store: per partition and topic, a hash `due:<topic>` (keys.ts) of
 * delayed jobs per due minute (`m<runAt / minute>`) and per due hour (`h<runAt / hour>`), kept by every
 * script that moves a job into or out of delayed (lua/record.lua dueCount). The due histogram reads them
 * (lua/due-histogram.lua) when its range and buckets are whole minutes: O(buckets), not O(jobs).
 */
export const DUE_COUNTER_MS = { minute: 60_000, hour: 3_600_000 } as const;

/** A histogram query the counters answer exactly: every edge on a whole minute. */
export function onCounterEdges(query: { from: number; to: number; bucketMs: number }): boolean {
  const m = DUE_COUNTER_MS.minute;
  return query.from % m === 0 && query.to % m === 0 && query.bucketMs % m === 0;
}
