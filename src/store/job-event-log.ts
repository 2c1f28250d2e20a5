import type { JobEvent, NewJobEvent } from '../core/job-event.js';

/**
 * Where a store keeps the job events that followers read (docs/events.md): a bounded log in
 * append order, with ids a follower resumes after. On a shared store every process appends to and
 * reads from one log, so an event produced by one process reaches followers connected to another.
 */
export interface JobEventLog {
  /**
   * Appends events in order. Never throws: an event that cannot be written is lost (the job's own
   * state and history stay right), and the loss is counted in `dropped`.
   */
  append(events: readonly NewJobEvent[]): void;
  /**
   * Calls `listener` with every event appended after `afterId` (null: from now on), in log order, until
   * the answer is called. Events older than the log keeps are gone: a resume from before them starts at
   * the oldest kept. Resolves once the follower is registered (events appended later reach it).
   */
  follow(afterId: string | null, listener: (event: JobEvent) => void): Promise<() => void>;
  /** Events that could not be appended since the process started. */
  readonly dropped: number;
}
