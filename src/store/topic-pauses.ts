import type { EpochMs } from '../core/clock.js';

/**
 * Paused topics, kept in the store so every process on it honours them: reserve (and so push-sink
 * delivery, which reserves through the service) skips a paused topic's jobs until it is resumed or its
 * `until` passes. The service follows them with a TopicPauseFollower (timer/topic-pause-follower.ts).
 */
export interface TopicPauses {
  /** Pauses `topic` until `until` (null: until resumed); a second pause replaces the first. */
  pause(topic: string, until: EpochMs | null): Promise<void>;
  /** Lifts a pause; false when the topic was not paused. */
  resume(topic: string): Promise<boolean>;
  /** Every pause recorded, topic → until (null: until resumed); lapsed ones may still be listed. */
  list(): Promise<Map<string, EpochMs | null>>;
}
