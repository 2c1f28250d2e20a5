import type { EpochMs } from '../../core/clock.js';
import type { JobRef, LapsedReservation, PromoteResult, WakeTimes } from '../store.js';
import { decodeRetry } from './retry-text.js';
import type { PartitionAccess } from './redis-reads.js';

/** Three wake-up heads (earliest delayed runAt, TTR deadline, ttl expiry; nil: none), then a list. */
type HeadsAnd<T> = [string | null, string | null, string | null, ...T[]];
/** promote.lua's reply: count, the heads after promoting, then the topics that got ready jobs. */
type PromoteReply = [number, ...HeadsAnd<string>];

/**
 * When the store leaves due jobs to consumers (RedisStoreOptions.leaveDueToConsumers), a topic whose
 * consumers took jobs in the last DRAIN_WINDOW_MS keeps its due jobs delayed for reserve.lua to take in
 * one transition instead of two, until they have waited LONGEST_HOLD_MS. The hold bounds how long a due
 * job reads as delayed in stats and get(); the window, how soon an abandoned topic's jobs become ready.
 */
const DRAIN_WINDOW_MS = 1000;
const LONGEST_HOLD_MS = 5000;

/**
 * One partition: one script call, which also reports the wake-up heads. Several: exact earliest-first
 * in two steps: each partition reports the due times of its first due jobs, the client finds how many
 * each partition must promote so that together they are the `limit` earliest, then each promotes that
 * many. A peer promoting at the same time only makes the second step find fewer: a job is promoted once
 * because the script re-checks under Redis's lock.
 */
export async function promoteDue(
  store: PartitionAccess,
  now: EpochMs,
  limit: number,
  leaveToConsumers: boolean,
): Promise<PromoteResult> {
  if (store.parts.length === 1) {
    const leave = leaveToConsumers ? [DRAIN_WINDOW_MS, LONGEST_HOLD_MS] : ['', ''];
    const [count, ...rest] = (await store.run('promote', 0, [
      now,
      limit,
      store.nodeIndex(0),
      ...leave,
    ])) as PromoteReply;
    const topics = rest.slice(3) as string[];
    if (topics.length) store.madeReady(topics);
    return { count: Number(count), topics, next: earliestHeads([rest]) };
  }
  // Ids spread jobs evenly over the partitions, so each is first asked for its share of `limit` and a
  // margin, not for `limit`: reading a due time costs Redis a float print (`WITHSCORES`), and asking every
  // partition for `limit` read 8 due times per promoted job in a burst. If the shares do not settle which
  // jobs are the earliest (one partition holds far more than its share), every partition is asked again
  // for `limit`, which always settles it.
  const share = Math.min(limit, Math.ceil((limit * 1.25) / store.parts.length) + 8);
  let scored = await dueScores(store, now, share);
  let quota = quotas(scored, limit, share);
  if (!quota) {
    scored = await dueScores(store, now, limit);
    quota = quotas(scored, limit, limit)!;
  }
  const replies = new Map<number, PromoteReply>();
  // Several partitions promote every due job: due-scores would have to pass over the same sets, and
  // the quotas would no longer add up. reserve.lua still takes due jobs it finds.
  await Promise.all(
    [...quota].map(async ([p, n]) =>
      replies.set(p, (await store.run('promote', p, [now, n, store.nodeIndex(p), '', ''])) as PromoteReply),
    ),
  );
  const topics = new Set([...replies.values()].flatMap((reply) => reply.slice(4) as string[]));
  if (topics.size) store.madeReady(topics);
  // A promoted partition's heads come from its promote (after the move), the others' from due-scores.
  const next = earliestHeads(scored.map((reply, p) => (replies.get(p)?.slice(1) ?? reply) as HeadsAnd<unknown>));
  return { count: [...replies.values()].reduce((sum, [n]) => sum + Number(n), 0), topics: [...topics], next };
}

function dueScores(store: PartitionAccess, now: EpochMs, limit: number): Promise<HeadsAnd<string>[]> {
  return store.all((p) => store.run('due-scores', p, [now, limit])) as Promise<HeadsAnd<string>[]>;
}

/**
 * How many jobs each partition promotes so that together they are the `limit` earliest, from each
 * partition's first due times (at most `asked` each). Undefined when that cannot be told: a partition
 * that answered `asked` times may hold more, and its unseen ones could be earlier than the limit-th.
 */
function quotas(scored: readonly HeadsAnd<string>[], limit: number, asked: number): Map<number, number> | undefined {
  const merged = scored
    .flatMap((reply, p) => reply.slice(3).map((at) => ({ at: Number(at), p })))
    .sort((a, b) => a.at - b.at || a.p - b.p);
  const cut = merged[limit - 1]?.at;
  for (const reply of scored) {
    const times = reply.length - 3;
    // Ties at the cut are fine: jobs due in the same ms are not ordered across sets either (due-scores.lua).
    if (times === asked && asked < limit && (cut === undefined || Number(reply[reply.length - 1]) < cut))
      return undefined;
  }
  const quota = new Map<number, number>();
  for (const { p } of merged.slice(0, limit)) quota.set(p, (quota.get(p) ?? 0) + 1);
  return quota;
}

/** The earliest of each head over the partitions' replies. */
function earliestHeads(replies: readonly HeadsAnd<unknown>[]): WakeTimes {
  const min = (k: number): number | null => {
    let at: number | null = null;
    for (const reply of replies) {
      const v = reply[k];
      if (v !== null && v !== undefined && (at === null || Number(v) < at)) at = Number(v);
    }
    return at;
  };
  return { promoteAt: min(0), deadlineAt: min(1), expireAt: min(2) };
}

export async function listLapsed(store: PartitionAccess, now: EpochMs, limit: number): Promise<LapsedReservation[]> {
  const replies = (await store.all((p) => store.run('lapsed', p, [now, limit]))) as unknown[][];
  const lapsed: LapsedReservation[] = [];
  for (const flat of replies) {
    for (let i = 0; i < flat.length; i += 6) {
      lapsed.push({
        id: String(flat[i]),
        topic: String(flat[i + 1]),
        token: String(flat[i + 2]),
        attempts: Number(flat[i + 3]),
        deadlineAt: Number(flat[i + 4]),
        retry: decodeRetry(String(flat[i + 5])),
      });
    }
  }
  return lapsed.sort((a, b) => a.deadlineAt - b.deadlineAt).slice(0, limit);
}

/** expire: partitions one after another, each with what is left of `limit`, so the total never exceeds it. */
export async function drainPartitions(
  store: PartitionAccess,
  name: 'expire',
  at: EpochMs,
  limit: number,
): Promise<JobRef[]> {
  const done: JobRef[] = [];
  for (let p = 0; p < store.parts.length && done.length < limit; p++) {
    const flat = (await store.run(name, p, [at, limit - done.length, store.nodeIndex(p)])) as unknown[];
    for (let i = 0; i < flat.length; i += 2) done.push({ id: String(flat[i]), topic: String(flat[i + 1]) });
  }
  return done;
}

export async function nextWakeAt(store: PartitionAccess): Promise<EpochMs | null> {
  const heads = await store.guard((c) =>
    store.all((p) => {
      const k = store.parts[p]!;
      // The reserved set's marker (reserve.lua) sits at +inf: its head is the first member below.
      return Promise.all([
        c.zrange(k.dueIndex, 0, '0', 'WITHSCORES'),
        c.zrange(k.reserved, '-inf', '(+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES'),
        c.zrange(k.expiry, 0, '0', 'WITHSCORES'),
      ]);
    }),
  );
  let earliest: number | null = null;
  for (const partition of heads) {
    for (const [, score] of partition) {
      if (score !== undefined && (earliest === null || Number(score) < earliest)) earliest = Number(score);
    }
  }
  return earliest;
}
