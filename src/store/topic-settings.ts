import type { TopicSettings } from '../core/topic-settings.js';

/**
 * Topics' flow-control settings (core/topic-settings.ts), kept in the store as topic pauses are
 * (topic-pauses.ts), so every process on it follows them: the service reads them back with a
 * TopicSettingsFollower (timer/topic-settings-follower.ts).
 */
export interface TopicSettingsStore {
  /** Replaces a topic's settings; empty settings forget the topic. */
  put(topic: string, settings: TopicSettings): Promise<void>;
  /** Every topic with settings. */
  list(): Promise<Map<string, TopicSettings>>;
}
