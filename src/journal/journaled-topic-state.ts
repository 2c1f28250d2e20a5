import type { EpochMs } from '../core/clock.js';
import { isEmptySettings, type TopicSettings } from '../core/topic-settings.js';
import type { TopicPauses } from '../store/topic-pauses.js';
import type { TopicSettingsStore } from '../store/topic-settings.js';
import type { TopicStateJournal } from './topic-state-journal.js';

/**
 * Topics' settings on a journaled store: the inner store's, each change written to the journal first, so a wipe
 * of the inner store loses none (restoreTopicState puts them back). Read from the inner store.
 */
export class JournaledTopicSettings implements TopicSettingsStore {
  private readonly inner: TopicSettingsStore;
  private readonly journal: TopicStateJournal;

  constructor(inner: TopicSettingsStore, journal: TopicStateJournal) {
    this.inner = inner;
    this.journal = journal;
  }

  async put(topic: string, settings: TopicSettings): Promise<void> {
    await this.journal.put('settings', topic, isEmptySettings(settings) ? null : JSON.stringify(settings));
    await this.inner.put(topic, settings);
  }

  list(): Promise<Map<string, TopicSettings>> {
    return this.inner.list();
  }
}

/** Topics' (and groups') pauses on a journaled store, kept as JournaledTopicSettings keeps settings. */
export class JournaledTopicPauses implements TopicPauses {
  private readonly inner: TopicPauses;
  private readonly journal: TopicStateJournal;

  constructor(inner: TopicPauses, journal: TopicStateJournal) {
    this.inner = inner;
    this.journal = journal;
  }

  async pause(topic: string, until: EpochMs | null): Promise<void> {
    await this.journal.put('pause', topic, JSON.stringify({ until }));
    await this.inner.pause(topic, until);
  }

  async resume(topic: string): Promise<boolean> {
    await this.journal.put('pause', topic, null);
    return this.inner.resume(topic);
  }

  list(): Promise<Map<string, EpochMs | null>> {
    return this.inner.list();
  }
}

/** What restoreTopicState put back. */
export interface RestoredTopicState {
  settings: number;
  pauses: number;
}

/**
 * Puts the journal's settings and pauses back into the inner store (after it lost them: a wipe, a failover), those
 * it holds already written again with the same values; pauses that have ended are left out.
 */
export async function restoreTopicState(
  journal: TopicStateJournal,
  inner: { topicSettings: TopicSettingsStore; pauses: TopicPauses },
  now: EpochMs,
): Promise<RestoredTopicState> {
  const [settings, pauses] = await Promise.all([journal.list('settings'), journal.list('pause')]);
  await Promise.all(
    [...settings].map(([topic, value]) => inner.topicSettings.put(topic, JSON.parse(value) as TopicSettings)),
  );
  let paused = 0;
  await Promise.all(
    [...pauses].map(async ([key, value]) => {
      const { until } = JSON.parse(value) as { until: EpochMs | null };
      if (until !== null && until <= now) return;
      paused++;
      await inner.pauses.pause(key, until);
    }),
  );
  return { settings: settings.size, pauses: paused };
}
