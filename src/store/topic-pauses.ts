import type { EpochMs } from '../core/clock.js';

/**
 * A pause's key in the store: a topic's name, or for one group of a topic `topic/group` (a topic never holds a
 * "/", so the two never meet, and every store keeps group pauses with no change of its own).
 */
export const groupPauseKey = (topic: string, group: string): string => `${topic}/${group}`;

/** The topic and group of a key of `groupPauseKey`; undefined for a topic's own pause. */
export function groupOfPauseKey(key: string): { topic: string; group: string } | undefined {
  const at = key.indexOf('/');
  return at < 0 ? undefined : { topic: key.slice(0, at), group: key.slice(at + 1) };
}

/**
 * Paused topics (and groups of topics, keyed by `groupPauseKey`), kept in the store so every process on it honours them: reserve (and so push-sink
 * delivery, which reserves through the service) skips a paused topic's jobs until it is resumed or its
 * `until` passes. The service follows them with a TopicPauseFollower (timer/topic-pause-follower.ts).
 */
export interface TopicPauses {
  /** Pauses `topic` (or a group's key) until `until` (null: until resumed); a second pause replaces the first. */
  pause(topic: string, until: EpochMs | null): Promise<void>;
  /** Lifts a pause; false when the topic was not paused. */
  resume(topic: string): Promise<boolean>;
  /** Every pause recorded, key → until (null: until resumed); lapsed ones may still be listed. */
  list(): Promise<Map<string, EpochMs | null>>;
}
