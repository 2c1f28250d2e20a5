import { compareEventIds, type JobEvent, type NewJobEvent } from '../core/job-event.js';
import type { JobEventLog } from './job-event-log.js';

/**
 * The job event log of a store only this process uses (SQLite): the last `capacity` events in memory,
 * numbered from 1 per process, so a follower that reconnects to the same process resumes without a gap
 * unless more than `capacity` events went by. Listeners run synchronously: they must not throw or block.
 */
export class LocalJobEventLog implements JobEventLog {
  private readonly capacity: number;
  /** The last `capacity` events; once full, `head` is the oldest and each new event takes its place. */
  private readonly ring: JobEvent[] = [];
  private head = 0;
  private next = 1;
  private readonly listeners = new Set<(event: JobEvent) => void>();
  readonly dropped = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** Followers registered now (the leak check and tests read it). */
  get followers(): number {
    return this.listeners.size;
  }

  append(events: readonly NewJobEvent[]): void {
    for (const e of events) {
      // Fields listed, not spread: a spread copy is many times slower on this path (one event per job).
      const { event: name, id, topic, at, result, error } = e;
      const event: JobEvent = { event: name, id, topic, at, result, error, eventId: String(this.next++) };
      if (this.ring.length < this.capacity) this.ring.push(event);
      else if (this.capacity > 0) {
        this.ring[this.head] = event;
        this.head = (this.head + 1) % this.capacity;
      }
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch {
          /* one follower's failure is not the appender's */
        }
      }
    }
  }

  follow(afterId: string | null, listener: (event: JobEvent) => void): Promise<() => void> {
    if (afterId !== null) {
      for (let i = 0; i < this.ring.length; i++) {
        const event = this.ring[(this.head + i) % this.ring.length]!;
        if (compareEventIds(event.eventId, afterId) > 0) listener(event);
      }
    }
    this.listeners.add(listener);
    return Promise.resolve(() => this.listeners.delete(listener));
  }
}
