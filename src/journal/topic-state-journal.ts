/** What a row of the journal's topic state holds: a topic's settings, or a pause (of a topic or of one of its groups). */
export type TopicStateKind = 'settings' | 'pause';

/**
 * Topics' settings and pauses as the journal keeps them (sql/topic-state.ts): name → JSON, per kind. The
 * journaled store writes each change here too, and a restore reads them back (journaled-topic-state.ts).
 */
export interface TopicStateJournal {
  /** Keeps `value` (JSON) for the name; null forgets it. */
  put(kind: TopicStateKind, name: string, value: string | null): Promise<void>;
  /** Every name of a kind → its value (JSON). */
  list(kind: TopicStateKind): Promise<Map<string, string>>;
}
