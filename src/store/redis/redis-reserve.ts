import type { EpochMs } from '../../core/clock.js';
import { newTokenBase } from '../../core/ids.js';
import type { Reservation } from '../../core/job.js';
import { compareReadyOrder } from '../ready-order.js';
import type { JobRef, ReserveOptions, ReserveResult } from '../store.js';
import { recordToJob } from './job-record.js';
import { decodeRecord } from './record-codec.js';
import type { PartitionAccess } from './redis-reads.js';

/**
 * reserve over the partitions, visited from `start`; each call takes what a partition has, until `count`.
 * Within one call the jobs come back in the ready order (ready-order.ts); across partitions the order is that
 * of each partition's head, so a job may overtake a slightly earlier one of another partition.
 */
export async function reserveJobs(
  store: PartitionAccess,
  topics: readonly string[],
  count: number,
  now: EpochMs,
  options: ReserveOptions,
  start: number,
): Promise<ReserveResult> {
  topics = [...new Set(topics)];
  const taken: Reservation[] = [];
  const expired: JobRef[] = [];
  if (topics.length === 0 || count <= 0) return { reservations: taken, expired };
  const take = (p: number, n: number): Promise<void> =>
    store
      .run(
        'reserve',
        p,
        [now, n, options.ttrMs ?? '', store.nodeIndex(p), topics.length, ...topics, newTokenBase()],
        true,
      )
      .then((reply) => {
        const [flat, gone] = reply as [Buffer[], Buffer[]];
        for (let k = 0; k < flat.length; k += 2) {
          const record = decodeRecord(flat[k + 1]!);
          const job = recordToJob(flat[k]!.toString(), record);
          taken.push({ job, token: record.token!, deadlineAt: job.deadlineAt! });
        }
        for (let k = 0; k < gone.length; k += 2)
          expired.push({ id: gone[k]!.toString(), topic: gone[k + 1]!.toString() });
      });
  const partitions = store.parts.length;
  // One partition: straight to the script (it answers empty when nothing is ready).
  if (partitions === 1) {
    await take(0, count);
    return { reservations: taken, expired };
  }
  const order = store.parts.map((_, i) => (start + i) % partitions);
  // One pipelined look at how many jobs each partition holds, then scripts only where there are some.
  const sizes = await store.guard((c) =>
    Promise.all(
      order.map((p) =>
        Promise.all(topics.map((t) => c.zcard(store.parts[p]!.ready(t)))).then((n) => n.reduce((a, b) => a + b, 0)),
      ),
    ),
  );
  let wanted = count;
  const calls: Promise<void>[] = [];
  order.forEach((p, i) => {
    const n = Math.min(wanted, sizes[i]!);
    if (n <= 0) return;
    wanted -= n;
    calls.push(take(p, n));
  });
  await Promise.all(calls);
  return { reservations: taken.sort((a, b) => compareReadyOrder(a.job, b.job)), expired };
}
