import type { Clock, EpochMs } from '../core/clock.js';
import type { Logger } from 'pino';
import { startRefreshLoop } from './refresh-loop.js';
import { delayIn } from '../core/job-input.js';
import { emptyCounts, type TopicStats, type TopicStatsWithPause } from '../core/job.js';
import type { TopicPauses } from '../store/topic-pauses.js';

export interface TopicPause {
  paused: boolean;
  /** When a timed pause ends by itself; null when not paused or paused until resumed. */
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

  /** Reads the pauses back from the store, telling which topics are no longer paused. */
  async refresh(): Promise<void> {
    this.pauses = await this.store.list();
    const before = this.pausedAtRefresh;
    this.pausedAtRefresh = new Set(this.pausedNow());
    const lifted = [...before].filter((t) => !this.pausedAtRefresh.has(t));
    if (lifted.length) this.onResumed(lifted);
  }

  isPaused(topic: string, now: EpochMs = this.clock.now()): boolean {
    if (!this.pauses.has(topic)) return false;
    const until = this.pauses.get(topic)!;
    return until === null || until > now;
  }

  /** The pause of a topic as /v1/stats shows it. */
  pauseOf(topic: string, now: EpochMs = this.clock.now()): TopicPause {
    const paused = this.isPaused(topic, now);
    return { paused, pausedUntil: paused ? (this.pauses.get(topic) ?? null) : null };
  }

  /** Topics paused right now. */
  pausedNow(now: EpochMs = this.clock.now()): string[] {
    return [...this.pauses.keys()].filter((t) => this.isPaused(t, now));
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
  async pause(topic: string, delayMs?: number | string): Promise<TopicPause> {
    const until = delayMs === undefined ? null : this.clock.now() + delayIn(delayMs, 'delayMs');
    await this.store.pause(topic, until);
    this.pauses.set(topic, until);
    this.pausedAtRefresh.add(topic);
    return { paused: true, pausedUntil: until };
  }

  async resume(topic: string): Promise<boolean> {
    const wasPaused = this.isPaused(topic);
    const removed = await this.store.resume(topic);
    this.pauses.delete(topic);
    if (wasPaused) this.onResumed([topic]);
    return removed;
  }
}
