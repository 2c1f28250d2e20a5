import { bucketCount, addCounts, type DueCounts, type DueHistogramQuery } from '../due-histogram.js';
import { onCounterEdges } from './due-counters.js';
import type { PartitionAccess } from './redis-reads.js';

/** Delayed sets read per script call (lua/due-histogram-scan.lua): bounds how long one call holds Redis. */
const SETS_PER_CALL = 2000;

/**
 * Every partition's counts, summed bucket by bucket: from the due counters (lua/due-histogram.lua) when
 * every edge is a whole minute, else from the delayed sets in turn-sized slices (exact at any edge, at a
 * cost that grows with the jobs in range).
 */
export async function redisDueHistogram(store: PartitionAccess, query: DueHistogramQuery): Promise<DueCounts> {
  const total = new Array<number>(bucketCount(query)).fill(0);
  const topic = query.topic ?? '';
  if (onCounterEdges(query)) {
    await store.all(async (p) => {
      const reply = (await store.run('due-histogram', p, [topic, query.from, query.to, query.bucketMs])) as number[];
      addCounts(total, reply.map(Number));
    });
    return total;
  }
  await store.all(async (p) => {
    for (let rank = 0; rank >= 0;) {
      const args = [topic, query.from, query.to, query.bucketMs, rank, SETS_PER_CALL];
      const reply = (await store.run('due-histogram-scan', p, args)) as number[];
      rank = Number(reply[0]);
      addCounts(total, reply.slice(1).map(Number));
    }
  });
  return total;
}
