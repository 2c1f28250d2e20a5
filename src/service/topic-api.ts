/**
 * The topic-level calls of the service (`service.topics`): counts per state with each topic's pause, pausing
 * and resuming a topic, the first job of a topic in a state, its ready jobs below a priority, and the due-time
 * histogram of delayed jobs.
 */
import type { EpochMs } from '../core/clock.js';
import { validateTopic } from '../core/job-input.js';
import type { Job, TopicStatsWithPause } from '../core/job.js';
import type { PausedTopics, TopicPause } from '../scheduler/paused-topics.js';
import type { DueCounts, DueHistogramQuery } from '../store/due-histogram.js';
import type { PeekState } from '../store/peek-order.js';
import type { Store } from '../store/store.js';
import { normalizeDueHistogram, type DueHistogramInput } from './due-histogram-input.js';

/** What the topic calls need of DelayqService. */
export interface TopicApiHost {
  readonly store: Store;
  readonly paused: PausedTopics;
  now(): EpochMs;
  /** The service's guard: refused unless open, tracked for graceful close. */
  run<T>(operation: () => Promise<T>): Promise<T>;
}

export class TopicApi {
  private readonly host: TopicApiHost;

  constructor(host: TopicApiHost) {
    this.host = host;
  }

  /** Counts per state of every topic with jobs or a pause, and the pause. */
  stats(): Promise<TopicStatsWithPause[]> {
    return this.host.run(async () => this.host.paused.withPauses(await this.host.store.stats()));
  }

  /** Pauses a topic (reserve and delivery skip it), until resumed or, with `delayMs`, for that long. */
  pause(topic: string, options: { delayMs?: number | string | undefined } = {}): Promise<TopicPause> {
    return this.host.run(() => this.host.paused.pause(validateTopic(topic, 'topic'), options.delayMs));
  }

  /** Lifts a topic's pause; false when it was not paused. */
  resume(topic: string): Promise<boolean> {
    return this.host.run(() => this.host.paused.resume(validateTopic(topic, 'topic')));
  }

  /** The first job of a topic in a state, in that state's order (Store.peekNext). */
  peekNext(topic: string, state: PeekState): Promise<Job | null> {
    return this.host.run(() => this.host.store.peekNext(validateTopic(topic, 'topic'), state));
  }

  /** How many of a topic's ready jobs have a priority below `belowPriority` (Store.countReady). */
  countReady(topic: string, belowPriority: number): Promise<number> {
    return this.host.run(() => this.host.store.countReady(validateTopic(topic, 'topic'), belowPriority));
  }

  /** Delayed jobs per due-time bucket (GET /v1/stats/due); the query as normalized, with its counts. */
  dueHistogram(input: DueHistogramInput): Promise<DueHistogramQuery & { counts: DueCounts }> {
    return this.host.run(async () => {
      const query = normalizeDueHistogram(input, this.host.now());
      return { ...query, counts: await this.host.store.dueHistogram(query) };
    });
  }
}
