import type { ReserveOptions } from '../store.js';
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

/** What the grouped reserve follows: each topic's bound on one group's reserved jobs, and its paused groups. */
export interface GroupLimits {
  /** Topic → the most jobs of one group reserved at once; Infinity for a topic with paused groups and no bound. */
  concurrency: ReadonlyMap<string, number>;
  paused: ReadonlyMap<string, ReadonlySet<string>>;
}

/** The grouped reserve's limits from a reserve's options; undefined when no topic has a bound or a paused group. */
export function groupLimits(options: ReserveOptions): GroupLimits | undefined {
  const paused = options.pausedGroups ?? new Map<string, ReadonlySet<string>>();
  if (!options.groupConcurrency?.size && !paused.size) return undefined;
  const concurrency = new Map(options.groupConcurrency);
  for (const topic of paused.keys()) if (!concurrency.has(topic)) concurrency.set(topic, Infinity);
  return { concurrency, paused };
}

/**
 * Reserve where some topics have a groupConcurrency (`limits`: topic → the most jobs of one group reserved at
 * once) or paused groups (never served). Each job is the first in the ready order among: each topic without a limit's first job; each limited
 * topic's first job without a group, and the first job of its next group in turn (`turns` keeps the group a
 * topic last served, across calls) that holds fewer than its limit reserved. So the groups of a topic are
 * served round-robin, and a group with a backlog never holds up another. Runs inside the reserve's
 * transaction: counts and picks see no other writer.
 */
export function reserveGroupedRows(
  stmt: Statements,
  topics: readonly string[],
  { concurrency: limits, paused }: GroupLimits,
  turns: Map<string, string>,
  { count, now, base, ttrMs }: ReserveParams,
): JobValues[] {
  const held = new Map<string, number>();
  const heldBy = (topic: string, group: string): number => {
    const key = `${topic}\n${group}`;
    let n = held.get(key);
    if (n === undefined) {
      n = (stmt.reservedOfGroup.get({ topic, group }) as { n: number }).n;
      held.set(key, n);
    }
    return n;
  };
  /** Topics whose every group with ready jobs is at its limit: within one call no count goes down. */
  const full = new Set<string>();
  /** The first job of the topic's next group in turn below its limit; none when every group is at it. */
  const nextGroup = (topic: string, limit: number): Lane | undefined => {
    if (full.has(topic)) return undefined;
    const start = turns.get(topic) ?? '';
    // The groups after the one last served, then from the first up to that one.
    let after = start;
    let wrapped = false;
    for (;;) {
      const group = (stmt.nextReadyGroup.get({ topic, after }) as { job_group: string } | undefined)?.job_group;
      if (group === undefined || (wrapped && group > start)) {
        if (wrapped || start === '') {
          full.add(topic);
          return undefined;
        }
        wrapped = true;
        after = '';
        continue;
      }
      if (!paused.get(topic)?.has(group) && (limit === Infinity || heldBy(topic, group) < limit)) {
        const head = stmt.firstOfGroup.get({ topic, group }) as Head | undefined;
        if (head) return { topic, group, head };
      }
      after = group;
    }
  };
  const rows: JobValues[] = [];
  for (let i = 0; i < count; i++) {
    let best: Lane | undefined;
    const consider = (lane: Lane | undefined): void => {
      if (lane && (!best || before(lane.head, best.head))) best = lane;
    };
    for (const topic of topics) {
      const limit = limits.get(topic);
      if (limit === undefined) {
        const head = stmt.firstOfTopic.get({ topic }) as Head | undefined;
        if (head) consider({ topic, group: null, head });
        continue;
      }
      const head = stmt.firstUngroupedOfTopic.get({ topic }) as Head | undefined;
      if (head) consider({ topic, group: null, head });
      consider(nextGroup(topic, limit));
    }
    const chosen = best as Lane | undefined;
    if (!chosen) break;
    const row = stmt.reserveRow.get({ rowid: chosen.head.rowid, now, base, ttrMs }) as JobValues | undefined;
    if (!row) break;
    rows.push(row);
    if (chosen.group !== null && limits.has(chosen.topic)) {
      if (limits.get(chosen.topic) !== Infinity)
        held.set(`${chosen.topic}\n${chosen.group}`, heldBy(chosen.topic, chosen.group) + 1);
      turns.set(chosen.topic, chosen.group);
    }
  }
  return rows;
}
