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
 * Topics with group limits are reserved first, by one script over every partition (lua/reserve-groups.lua):
 * each group's jobs in the ready order, its bound and tokens kept across partitions.
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
  const limits = groupLimits(topics, options);
  if (!limits) return reservePartitions(store, topics, count, now, options, start);
  const grouped = await reserveGrouped(store, limits, count, now, options);
  const rest = topics.filter((t) => !(t in limits));
  const more = await reservePartitions(store, rest, count - grouped.reservations.length, now, options, start);
  return {
    reservations: [...grouped.reservations, ...more.reservations].sort((a, b) => compareReadyOrder(a.job, b.job)),
    expired: more.expired,
    ...(grouped.groupTokenInMs !== undefined ? { groupTokenInMs: grouped.groupTokenInMs } : {}),
  };
}

/** Jobs of the topics without group limits, partition by partition (lua/reserve.lua). */
async function reservePartitions(
  store: PartitionAccess,
  topics: readonly string[],
  count: number,
  now: EpochMs,
  options: ReserveOptions,
  start: number,
): Promise<ReserveResult> {
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
        taken.push(...reservations(flat));
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

/** Jobs of the topics with group limits, over every partition in one script (lua/reserve-groups.lua). */
async function reserveGrouped(
  store: PartitionAccess,
  limits: GroupLimitsArg,
  count: number,
  now: EpochMs,
  options: ReserveOptions,
): Promise<ReserveResult> {
  const nodes = store.parts.map((_, p) => store.nodeIndex(p)).join(',');
  const [flat, wait] = (await store.run(
    'reserve-groups',
    0,
    [now, count, options.ttrMs ?? '', store.parts.length, nodes, newTokenBase(), JSON.stringify(limits)],
    true,
  )) as [Buffer[], number | null];
  return {
    reservations: reservations(flat),
    expired: [],
    ...(wait !== null && wait !== undefined ? { groupTokenInMs: Number(wait) } : {}),
  };
}

/** A reserve script's flat reply (id, record, id, record, …) as reservations. */
function reservations(flat: readonly Buffer[]): Reservation[] {
  const out: Reservation[] = [];
  for (let k = 0; k < flat.length; k += 2) {
    const record = decodeRecord(flat[k + 1]!);
    const job = recordToJob(flat[k]!.toString(), record);
    out.push({ job, token: record.token!, deadlineAt: job.deadlineAt! });
  }
  return out;
}

/** reserve-groups.lua's limits: topic → its groupConcurrency (c), paused groups (p) and group rate (r). */
type GroupLimitsArg = Record<string, { c?: number; p?: string[]; r?: [number, number] }>;

/** The asked topics' group limits; undefined when none has any. */
function groupLimits(topics: readonly string[], options: ReserveOptions): GroupLimitsArg | undefined {
  const out: GroupLimitsArg = {};
  for (const topic of topics) {
    const c = options.groupConcurrency?.get(topic);
    const paused = options.pausedGroups?.get(topic);
    const rate = options.groupRateLimits?.get(topic);
    if (c === undefined && !paused?.size && !rate) continue;
    out[topic] = {
      ...(c !== undefined ? { c } : {}),
      ...(paused?.size ? { p: [...paused] } : {}),
      ...(rate ? { r: [rate.perSecond, rate.burst] } : {}),
    };
  }
  return Object.keys(out).length ? out : undefined;
}
