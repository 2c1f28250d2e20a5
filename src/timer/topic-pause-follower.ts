import type { Clock, EpochMs } from '../core/clock.js';
import type { Logger } from 'pino';
import { startRefreshLoop } from './refresh-loop.js';
import { delayIn } from '../core/job-input.js';
import { emptyCounts, type TopicStats, type TopicStatsWithPause } from '../core/job.js';
import { groupOfPauseKey, groupPauseKey, type TopicPauses } from '../store/topic-pauses.js';

export interface TopicPause {
  paused: boolean;
  /** When a timed pause ends by itself; null when not paused or paused until resumed. */
  pausedUntil: EpochMs | null;
}

/** A paused group of a topic, as `GET /v1/topics/{topic}/groups/paused` lists it. */
export interface GroupPause {
  group: string;
  /** When the pause ends by itself; null: until resumed. */
  pausedUntil: EpochMs | null;
}

export interface TopicPauseFollowerOptions {
  /** How often the pauses are read back from the store (other processes' pauses and resumes). @defaultValue 500 ms */
  refreshMs: number;
}

/**
 * This process's follower of the topic pauses kept in the store (store/topic-pauses.ts). Its own pauses
 * and resumes apply at once; those of other processes on a shared store within `refreshMs`. A pause whose
 * `until` passed no longer counts; `onResumed` hears of topics that stopped being paused (resume, `until` reached, or
 * another process), so long-polls waiting on them try again.
 */
export class TopicPauseFollower {
  private pauses = new Map<string, EpochMs | null>();
  /** The topics paused at the last refresh, to tell which stopped being paused since. */
  private pausedAtRefresh = new Set<string>();
  private readonly store: TopicPauses;
  private readonly clock: Clock;
  private readonly onResumed: (topics: string[]) => void;
  private readonly logger: Logger;
  private readonly refreshMs: number;
  private stopRefresh: () => void = () => undefined;

  constructor(
    store: TopicPauses,
    clock: Clock,
    onResumed: (topics: string[]) => void,
    logger: Logger,
    options: Partial<TopicPauseFollowerOptions> = {},
  ) {
    this.store = store;
    this.clock = clock;
    this.onResumed = onResumed;
    this.logger = logger;
    this.refreshMs = options.refreshMs ?? 500;
  }

  async start(): Promise<void> {
    this.stopRefresh = await startRefreshLoop(
      () => this.refresh(),
      this.refreshMs,
      this.logger,
      'reading paused topics failed; retrying',
    );
  }

  stop(): void {
    this.stopRefresh();
  }

  /** Reads the pauses back from the store, telling which topics (or groups of which topics) are no longer paused. */
  async refresh(): Promise<void> {
    this.pauses = await this.store.list();
    const before = this.pausedAtRefresh;
    this.pausedAtRefresh = new Set([...this.pauses.keys()].filter((key) => this.isPaused(key)));
    const lifted = [...before].filter((key) => !this.pausedAtRefresh.has(key));
    if (lifted.length) this.onResumed([...new Set(lifted.map((key) => groupOfPauseKey(key)?.topic ?? key))]);
  }

  /** Whether a topic (or a pause key of one of its groups) is paused now. */
  isPaused(topic: string, now: EpochMs = this.clock.now()): boolean {
    if (!this.pauses.has(topic)) return false;
    const until = this.pauses.get(topic)!;
    return until === null || until > now;
  }

  /** The paused groups of `topics` (topic → groups), for Store.reserve; undefined when none is. */
  pausedGroupsOf(topics: readonly string[], now: EpochMs = this.clock.now()): Map<string, Set<string>> | undefined {
    let out: Map<string, Set<string>> | undefined;
    for (const key of this.pauses.keys()) {
      const of = groupOfPauseKey(key);
      if (!of || !topics.includes(of.topic) || !this.isPaused(key, now)) continue;
      out ??= new Map();
      const groups = out.get(of.topic) ?? new Set<string>();
      out.set(of.topic, groups.add(of.group));
    }
    return out;
  }

  /** A topic's paused groups, by name. */
  groupPausesOf(topic: string, now: EpochMs = this.clock.now()): GroupPause[] {
    const out: GroupPause[] = [];
    for (const [key, until] of this.pauses) {
      const of = groupOfPauseKey(key);
      if (of?.topic === topic && this.isPaused(key, now)) out.push({ group: of.group, pausedUntil: until });
    }
    return out.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  }

  /** The pause of a topic as /v1/stats shows it. */
  pauseOf(topic: string, now: EpochMs = this.clock.now()): TopicPause {
    const paused = this.isPaused(topic, now);
    return { paused, pausedUntil: paused ? (this.pauses.get(topic) ?? null) : null };
  }

  /** Topics paused right now (their groups' pauses left out). */
  pausedNow(now: EpochMs = this.clock.now()): string[] {
    return [...this.pauses.keys()].filter((key) => !groupOfPauseKey(key) && this.isPaused(key, now));
  }

  /** The store's stats with each topic's pause, and the paused topics that have no jobs. */
  withPauses(stats: readonly TopicStats[], now: EpochMs = this.clock.now()): TopicStatsWithPause[] {
    const all: TopicStatsWithPause[] = stats.map((s) => ({ ...s, ...this.pauseOf(s.topic, now) }));
    for (const topic of this.pausedNow(now)) {
      if (!stats.some((s) => s.topic === topic))
        all.push({ topic, counts: emptyCounts(), nextDueAt: null, ...this.pauseOf(topic, now) });
    }
    return all.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
  }

  /** Pauses until resumed, or for `delayMs` (ms or a text such as "30s"). */
  pause(topic: string, delayMs?: number | string): Promise<TopicPause> {
    return this.pauseKey(topic, delayMs);
  }

  resume(topic: string): Promise<boolean> {
    return this.resumeKey(topic, topic);
  }

  /** Pauses one group of a topic: its jobs stay ready, the topic's other jobs go on. */
  pauseGroup(topic: string, group: string, delayMs?: number | string): Promise<TopicPause> {
    return this.pauseKey(groupPauseKey(topic, group), delayMs);
  }

  resumeGroup(topic: string, group: string): Promise<boolean> {
    return this.resumeKey(groupPauseKey(topic, group), topic);
  }

  private async pauseKey(key: string, delayMs?: number | string): Promise<TopicPause> {
    const until = delayMs === undefined ? null : this.clock.now() + delayIn(delayMs, 'delayMs');
    await this.store.pause(key, until);
    this.pauses.set(key, until);
    this.pausedAtRefresh.add(key);
    return { paused: true, pausedUntil: until };
  }

  /** Lifts the pause `key`; waiters on `topic` try again when it was in force. */
  private async resumeKey(key: string, topic: string): Promise<boolean> {
    const wasPaused = this.isPaused(key);
    const removed = await this.store.resume(key);
    this.pauses.delete(key);
    if (wasPaused) this.onResumed([topic]);
    return removed;
  }
}
