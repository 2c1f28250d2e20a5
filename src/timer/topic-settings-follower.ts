import type { Logger } from 'pino';
import { startRefreshLoop } from './refresh-loop.js';
import type { RateLimit, TopicSettings } from '../core/topic-settings.js';
import type { TopicSettingsStore } from '../store/topic-settings.js';

export interface TopicSettingsFollowerOptions {
  /** How often the settings are read back from the store (other processes' changes). @defaultValue 500 ms */
  refreshMs: number;
}

/**
 * This process's follower of the topic settings kept in the store (store/topic-settings.ts), as the topic
 * pauses are followed (topic-pause-follower.ts): its own changes apply at once, those of other processes
 * on a shared store within `refreshMs`. Reads are from memory, so a reserve costs no store call for them.
 * `onChanged` hears of topics whose settings changed (here or in another process), so reserves waiting on
 * them (a long-poll refused by the old rate) try again under the new settings.
 */
export class TopicSettingsFollower {
  private settings = new Map<string, TopicSettings>();
  private readonly store: TopicSettingsStore;
  private readonly logger: Logger;
  private readonly onChanged: (topics: string[]) => void;
  private readonly refreshMs: number;
  private stopRefresh: () => void = () => undefined;

  constructor(
    store: TopicSettingsStore,
    onChanged: (topics: string[]) => void,
    logger: Logger,
    options: Partial<TopicSettingsFollowerOptions> = {},
  ) {
    this.store = store;
    this.onChanged = onChanged;
    this.logger = logger;
    this.refreshMs = options.refreshMs ?? 500;
  }

  async start(): Promise<void> {
    this.stopRefresh = await startRefreshLoop(
      () => this.refresh(),
      this.refreshMs,
      this.logger,
      'reading topic settings failed; retrying',
    );
  }

  stop(): void {
    this.stopRefresh();
  }

  async refresh(): Promise<void> {
    const before = this.settings;
    this.settings = await this.store.list();
    const topics = new Set([...before.keys(), ...this.settings.keys()]);
    const changed = [...topics].filter(
      (t) => JSON.stringify(before.get(t) ?? {}) !== JSON.stringify(this.settings.get(t) ?? {}),
    );
    if (changed.length) this.onChanged(changed);
  }

  /** A topic's settings ({} when it has none). */
  of(topic: string): TopicSettings {
    return this.settings.get(topic) ?? {};
  }

  rateLimitOf(topic: string): RateLimit | undefined {
    return this.settings.get(topic)?.rateLimit;
  }

  /** The topics among `topics` with a groupConcurrency (topic → N), for Store.reserve; undefined when none has. */
  groupConcurrencyOf(topics: readonly string[]): Map<string, number> | undefined {
    return this.byTopic(topics, 'groupConcurrency');
  }

  /** The topics among `topics` with a groupRateLimit (topic → its limit per group), for Store.reserve. */
  groupRateLimitOf(topics: readonly string[]): Map<string, RateLimit> | undefined {
    return this.byTopic(topics, 'groupRateLimit');
  }

  /** One setting of the topics among `topics` that have it; undefined when none has. */
  private byTopic<K extends keyof TopicSettings>(
    topics: readonly string[],
    field: K,
  ): Map<string, NonNullable<TopicSettings[K]>> | undefined {
    let found: Map<string, NonNullable<TopicSettings[K]>> | undefined;
    for (const topic of topics) {
      const value = this.settings.get(topic)?.[field];
      if (value !== undefined && value !== null) (found ??= new Map()).set(topic, value);
    }
    return found;
  }

  /** True when some topic has a rate limit (reserve's fast path skips the buckets otherwise). */
  get anyRateLimit(): boolean {
    for (const s of this.settings.values()) if (s.rateLimit) return true;
    return false;
  }

  /** Replaces a topic's settings in the store and here. */
  async put(topic: string, settings: TopicSettings): Promise<void> {
    await this.store.put(topic, settings);
    const copy = new Map(this.settings);
    if (Object.keys(settings).length === 0) copy.delete(topic);
    else copy.set(topic, settings);
    this.settings = copy;
    this.onChanged([topic]);
  }
}
