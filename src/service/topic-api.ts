/**
 * The topic-level calls of the service (`service.topics`): counts per state with each topic's pause, pausing
 * and resuming a topic or one of its groups, the first job of a topic in a state, its ready jobs below a priority, the due-time
 * histogram of delayed jobs, and the store-wide figures over time.
 */
import type { EpochMs } from '../core/clock.js';
import { invalid } from '../core/errors.js';
import { validateGroup, validateTopic } from '../core/job-input.js';
import type { Job, TopicStatsWithPause } from '../core/job.js';
import type { GroupPause, TopicPauseFollower, TopicPause } from '../timer/topic-pause-follower.js';
import type { TopicSettingsFollower } from '../timer/topic-settings-follower.js';
import {
  groupsUnsupported,
  validateTopicSettings,
  type TopicSettings,
  type TopicSettingsInput,
} from '../core/topic-settings.js';
import { addCounts, bucketCount, type DueCounts, type DueHistogramQuery } from '../store/due-histogram.js';
import type { PeekState } from '../store/peek-order.js';
import type { Store } from '../store/store.js';
import { normalizeDueHistogram, type DueHistogramInput } from './due-histogram-input.js';
import { normalizeSeriesQuery, type SeriesInput, type SeriesRange } from './series-query.js';
import { seriesSteps, type TopicSeries } from './series-steps.js';
import { slotStart } from '../store/job-series.js';
import { pageTopics, type TopicPage, type TopicPageQuery } from './topic-page.js';

/** What the topic calls need of DelayqService. */
export interface TopicApiHost {
  readonly store: Store;
  readonly pauses: TopicPauseFollower;
  readonly topicSettings: TopicSettingsFollower;
  now(): EpochMs;
  /** The service's guard: refused unless open, tracked for graceful close. */
  run<T>(operation: () => Promise<T>): Promise<T>;
  /** This process's series counts: a read first writes the pending ones, so it includes them. */
  readonly series: { flush(): Promise<void> };
}

/** What a series read answers: the range as normalized (without its tier), the tier's slot, each topic's steps. */
export interface SeriesAnswer extends Omit<SeriesRange, 'tier'> {
  slotMs: number;
  /** The part of [from, to) that has passed: min(to, now) − from (a rate's denominator). */
  elapsedMs: number;
  topics: TopicSeries[];
}

export class TopicApi {
  private readonly host: TopicApiHost;

  constructor(host: TopicApiHost) {
    this.host = host;
  }

  /** Counts per state of every topic with jobs or a pause, and the pause. */
  stats(): Promise<TopicStatsWithPause[]> {
    return this.host.run(async () => this.host.pauses.withPauses(await this.host.store.stats()));
  }

  /**
   * One page of the topics (GET /v1/topics), filtered, sorted and cut at a cursor; `visible` leaves out the
   * topics the caller may not see, before counting and paging. Read from the same counts as `stats`.
   */
  page(query: TopicPageQuery, visible: (topic: string) => boolean = () => true): Promise<TopicPage> {
    return this.host.run(async () => {
      const all = this.host.pauses.withPauses(await this.host.store.stats());
      return pageTopics(
        all.filter((t) => visible(t.topic)),
        query,
      );
    });
  }

  /** Pauses a topic (reserve and delivery skip it), until resumed or, with `delayMs`, for that long. */
  pause(topic: string, options: { delayMs?: number | string | undefined } = {}): Promise<TopicPause> {
    return this.host.run(() => this.host.pauses.pause(validateTopic(topic, 'topic'), options.delayMs));
  }

  /** Lifts a topic's pause; false when it was not paused. */
  resume(topic: string): Promise<boolean> {
    return this.host.run(() => this.host.pauses.resume(validateTopic(topic, 'topic')));
  }

  /** Pauses one group of a topic (its jobs are not reserved nor delivered, the others go on), as `pause` does a topic. */
  pauseGroup(
    topic: string,
    group: string,
    options: { delayMs?: number | string | undefined } = {},
  ): Promise<TopicPause> {
    return this.host.run(() => {
      const [valid, name] = this.groupOf(topic, group);
      return this.host.pauses.pauseGroup(valid, name, options.delayMs);
    });
  }

  /** Lifts a group's pause; false when it was not paused. */
  resumeGroup(topic: string, group: string): Promise<boolean> {
    return this.host.run(() => this.host.pauses.resumeGroup(...this.groupOf(topic, group)));
  }

  /** A topic's paused groups, by name. */
  groupPauses(topic: string): Promise<GroupPause[]> {
    return this.host.run(async () => this.host.pauses.groupPausesOf(validateTopic(topic, 'topic')));
  }

  /** The topic and group checked, on a store that keeps groups. */
  private groupOf(topic: string, group: string): [string, string] {
    const valid = validateTopic(topic, 'topic');
    const name = validateGroup(group, 'group');
    if (name === undefined) throw invalid('group', 'is required');
    if (!this.host.store.capabilities.groups) throw groupsUnsupported('group', this.host.store.kind);
    return [valid, name];
  }

  /** A topic's flow-control settings as the store keeps them ({} when it has none). */
  settings(topic: string): Promise<TopicSettings> {
    return this.host.run(async () => {
      const all = await this.host.store.topicSettings.list();
      return all.get(validateTopic(topic, 'topic')) ?? {};
    });
  }

  /** Replaces a topic's settings (a field left out is cleared), for every process on the store. */
  putSettings(topic: string, input: TopicSettingsInput): Promise<TopicSettings> {
    return this.host.run(async () => {
      const valid = validateTopic(topic, 'topic');
      const settings = validateTopicSettings(input);
      if (!this.host.store.capabilities.groups)
        for (const field of ['groupConcurrency', 'groupRateLimit'] as const)
          if (settings[field] !== undefined) throw groupsUnsupported(field, this.host.store.kind);
      await this.host.topicSettings.put(valid, settings);
      return settings;
    });
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

  /**
   * Store-wide figures over time (GET /v1/stats/series): per topic and step, the transitions, the lateness
   * of reserved jobs and the backlog, as every process on the store recorded them. Without a topic, every
   * topic with figures in range that `visible` lets through.
   */
  series(input: SeriesInput, visible: (topic: string) => boolean = () => true): Promise<SeriesAnswer> {
    return this.host.run(async () => {
      const now = this.host.now();
      const { tier, ...range } = normalizeSeriesQuery(input, now);
      await this.host.series.flush();
      // Nothing is kept ahead of now: the read stops at the slot in progress, whatever `to` says.
      const slots = await this.host.store.series.read({
        slotMs: tier.slotMs,
        from: range.from,
        to: Math.min(range.to, slotStart(now, tier.slotMs) + tier.slotMs),
        topic: range.topic,
      });
      const topics =
        range.topic !== undefined ? [range.topic] : [...new Set(slots.map((s) => s.topic))].filter(visible).sort();
      return {
        ...range,
        slotMs: tier.slotMs,
        elapsedMs: Math.max(0, Math.min(range.to, now) - range.from),
        topics: seriesSteps({ ...range, tier }, slots, topics),
      };
    });
  }

  /** The due-time histogram of several topics summed (a caller limited to some topics asking for "all"). */
  dueHistogramOf(
    topics: readonly string[],
    input: Omit<DueHistogramInput, 'topic'>,
  ): Promise<DueHistogramQuery & { counts: DueCounts }> {
    return this.host.run(async () => {
      const query = normalizeDueHistogram({ ...input, topic: undefined }, this.host.now());
      const counts = new Array<number>(bucketCount(query)).fill(0);
      for (const topic of topics) addCounts(counts, await this.host.store.dueHistogram({ ...query, topic }));
      return { ...query, counts };
    });
  }
}
