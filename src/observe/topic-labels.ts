import { UNKNOWN_TOPIC } from '../service/service-events.js';

/** The label value of every topic past the cap. */
export const OTHER_TOPIC = 'other';

/**
 * Bounds the `topic` label: the first `limit` distinct topics seen keep their name, every later one is
 * `other`, so a client pushing to random topics cannot create unbounded series.
 */
export class TopicLabels {
  private readonly known = new Set<string>();
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  label(topic: string): string {
    if (topic === UNKNOWN_TOPIC || this.known.has(topic)) return topic;
    if (this.known.size >= this.limit) return OTHER_TOPIC;
    this.known.add(topic);
    return topic;
  }
}
