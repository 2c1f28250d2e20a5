import type { EpochMs } from '../../core/clock.js';
import type { RateLimit } from '../../core/topic-settings.js';
import type { ReserveOptions } from '../store.js';
import { msToWholeToken, tokensAt, type TokenBucket } from '../token-bucket.js';
import type { JobValues } from './job-row.js';
import type { ReserveParams } from './reserve-rows.js';
import type { Statements } from './sqlite-reads.js';

/** The ready-order key of a candidate row (ready-order.ts). */
interface Head {
  rowid: number;
  priority: number;
  run_at: number;
  created_at: number;
  id: string;
}

/** Where a candidate comes from: a topic's ready jobs, those without a group, or one group's. */
interface Lane {
  topic: string;
  group: string | null;
  head: Head;
}

function before(a: Head, b: Head): boolean {
  if (a.priority !== b.priority) return a.priority < b.priority;
  if (a.run_at !== b.run_at) return a.run_at < b.run_at;
  if (a.created_at !== b.created_at) return a.created_at < b.created_at;
  return a.id < b.id;
}

/**
 * What the grouped reserve follows: each topic's bound on one group's reserved jobs, its paused groups and the
 * rate limit of each of its groups.
 */
export interface GroupLimits {
  /** Topic → the most jobs of one group reserved at once; Infinity for a topic with paused groups or a group rate and no bound. */
  concurrency: ReadonlyMap<string, number>;
  paused: ReadonlyMap<string, ReadonlySet<string>>;
  rates: ReadonlyMap<string, RateLimit>;
}

/** The grouped reserve's limits from a reserve's options; undefined when no topic has a group limit of any kind. */
export function groupLimits(options: ReserveOptions): GroupLimits | undefined {
  const paused = options.pausedGroups ?? new Map<string, ReadonlySet<string>>();
  const rates = options.groupRateLimits ?? new Map<string, RateLimit>();
  if (!options.groupConcurrency?.size && !paused.size && !rates.size) return undefined;
  const concurrency = new Map(options.groupConcurrency);
  for (const topic of [...paused.keys(), ...rates.keys()])
    if (!concurrency.has(topic)) concurrency.set(topic, Infinity);
  return { concurrency, paused, rates };
}

/** One group's token bucket (groupRateLimit), with the limit it was last taken under. */
interface Bucket extends TokenBucket {
  limit: RateLimit;
}

/**
 * The token buckets of the groups of rate-limited topics, keyed `topic\ngroup`, in memory (the embedded store
 * serves one process). A group without one has a full bucket; one that has filled up again is dropped.
 */
export class GroupBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt = 0;

  /** The group's tokens at `now` (refilled, at most the burst). */
  tokens(key: string, limit: RateLimit, now: EpochMs): number {
    return tokensAt(this.buckets.get(key), limit, now);
  }

  take(key: string, limit: RateLimit, now: EpochMs): void {
    this.buckets.set(key, { tokens: this.tokens(key, limit, now) - 1, at: now, limit });
    if (now - this.sweptAt >= SWEEP_EVERY_MS) this.sweep(now);
  }

  /** Ms until a group with `tokens` has a whole one. */
  static waitMs(tokens: number, limit: RateLimit): number {
    return Math.max(1, msToWholeToken(tokens, limit));
  }

  /** Drops the buckets that are full again, so groups served once long ago cost nothing. */
  private sweep(now: EpochMs): void {
    this.sweptAt = now;
    for (const [key, bucket] of this.buckets)
      if (this.tokens(key, bucket.limit, now) >= bucket.limit.burst) this.buckets.delete(key);
  }
}

const SWEEP_EVERY_MS = 60_000;

/** The grouped reserve's rows, and when a group passed over for want of a token has its next one. */
export interface GroupedRows {
  rows: JobValues[];
  tokenInMs: number | undefined;
}

/** nextGroupHead's row: a group's first ready job, its group and the group's reserved jobs. */
interface GroupHead extends Head {
  job_group: string;
  held: number;
}

/**
 * Reserve where some topics have a groupConcurrency (`limits`: topic → the most jobs of one group reserved at
 * once) or paused groups (never served). Each job is the first in the ready order among: each topic without a
 * limit's first job; each limited topic's first job without a group, and the first job of its next group in
 * turn (`turns` keeps the group a topic last served, across calls) that holds fewer than its limit reserved. So
 * the groups of a topic are served round-robin, and a group with a backlog never holds up another. A group of a
 * topic with a group rate limit is served only while its bucket holds a token, and each job it gives takes one.
 * Runs inside the reserve's transaction: counts and picks see no other writer, and see this call's own
 * reservations. A lane's candidate is read again only after the lane gave a job, so a job costs about one seek
 * of its group (its head and the group's count together) and its update.
 */
export function reserveGroupedRows(
  stmt: Statements,
  topics: readonly string[],
  { concurrency: limits, paused, rates }: GroupLimits,
  turns: Map<string, string>,
  buckets: GroupBuckets,
  { count, now, base, ttrMs }: ReserveParams,
): GroupedRows {
  let tokenInMs: number | undefined;
  /** True when the group may give a job now by its rate; otherwise notes when it may. */
  const hasToken = (topic: string, group: string): boolean => {
    const rate = rates.get(topic);
    if (!rate) return true;
    const tokens = buckets.tokens(`${topic}\n${group}`, rate, now);
    if (tokens >= 1) return true;
    const wait = GroupBuckets.waitMs(tokens, rate);
    tokenInMs = tokenInMs === undefined ? wait : Math.min(tokenInMs, wait);
    return false;
  };
  /** The first job of the topic's next group in turn below its limit; none when every group is at it. */
  const nextGroup = (topic: string, limit: number): Lane | undefined => {
    const start = turns.get(topic) ?? '';
    // The groups after the one last served, then from the first up to that one.
    let after = start;
    let wrapped = false;
    for (;;) {
      const row = stmt.nextGroupHead.get({ topic, after }) as GroupHead | undefined;
      if (row === undefined || (wrapped && row.job_group > start)) {
        if (wrapped || start === '') return undefined;
        wrapped = true;
        after = '';
        continue;
      }
      const group = row.job_group;
      if (!paused.get(topic)?.has(group) && (limit === Infinity || row.held < limit) && hasToken(topic, group))
        return { topic, group, head: row };
      after = group;
    }
  };
  /** Each topic's candidates: its first job outside groups, and its next group's first job. */
  const loose = new Map<string, Lane | null>();
  const grouped = new Map<string, Lane | null>();
  /** Topics whose every group with ready jobs is at its limit: within one call no count goes down. */
  const full = new Set<string>();
  const looseOf = (topic: string): Lane | null => {
    let lane = loose.get(topic);
    if (lane === undefined) {
      const head = (limits.has(topic) ? stmt.firstUngroupedOfTopic : stmt.firstOfTopic).get({ topic }) as
        Head | undefined;
      lane = head ? { topic, group: null, head } : null;
      loose.set(topic, lane);
    }
    return lane;
  };
  const groupOf = (topic: string, limit: number): Lane | null => {
    let lane = grouped.get(topic);
    if (lane === undefined) {
      lane = full.has(topic) ? null : (nextGroup(topic, limit) ?? null);
      if (!lane) full.add(topic);
      grouped.set(topic, lane);
    }
    return lane;
  };
  const rows: JobValues[] = [];
  for (let i = 0; i < count; i++) {
    let best: Lane | undefined;
    const consider = (lane: Lane | null): void => {
      if (lane && (!best || before(lane.head, best.head))) best = lane;
    };
    for (const topic of topics) {
      consider(looseOf(topic));
      const limit = limits.get(topic);
      if (limit !== undefined) consider(groupOf(topic, limit));
    }
    const chosen = best as Lane | undefined;
    if (!chosen) break;
    const row = stmt.reserveRow.get({ rowid: chosen.head.rowid, now, base, ttrMs }) as JobValues | undefined;
    if (!row) break;
    rows.push(row);
    if (chosen.group === null) {
      loose.delete(chosen.topic);
      continue;
    }
    grouped.delete(chosen.topic);
    const rate = rates.get(chosen.topic);
    if (rate) buckets.take(`${chosen.topic}\n${chosen.group}`, rate, now);
    turns.set(chosen.topic, chosen.group);
  }
  return { rows, tokenInMs: rows.length < count ? tokenInMs : undefined };
}
