import { bucketCount, addCounts, type DueCounts, type DueHistogramQuery } from '../due-histogram.js';
import type { PartitionAccess } from './redis-reads.js';

/** Delayed sets read per script call (lua/due-histogram.lua): bounds how long one call holds Redis. */
const SETS_PER_CALL = 2000;

/** Every partition in turn-sized slices of its delayed sets, summed bucket by bucket. */
export async function redisDueHistogram(store: PartitionAccess, query: DueHistogramQuery): Promise<DueCounts> {
  const total = new Array<number>(bucketCount(query)).fill(0);
  await store.all(async (p) => {
    for (let rank = 0; rank >= 0;) {
      const reply = (await store.run('due-histogram', p, [
        query.topic ?? '',
        query.from,
        query.to,
        query.bucketMs,
        rank,
        SETS_PER_CALL,
      ])) as number[];
      rank = Number(reply[0]);
      addCounts(total, reply.slice(1).map(Number));
    }
  });
  return total;
}
