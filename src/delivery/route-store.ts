import type { EpochMs } from '../core/clock.js';
import type { SinkConfig } from './sink-config.js';

/** A push topic's route: its jobs go to `sink` instead of waiting for `reserve`. */
export interface SinkRoute {
  topic: string;
  sink: SinkConfig;
  updatedAt: EpochMs;
}

/**
 * Where routes live, so they survive restarts and several delayq instances share them (SQLite for one
 * process, a Redis hash for many). Separate from the job Store on purpose: routes are configuration,
 * read rarely and written by operators, and they must not widen the Store boundary.
 * Implementations store configs already validated by `parseSinkConfig`.
 */
export interface RouteStore {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Creates or replaces the route of `topic`. */
  set(route: SinkRoute): Promise<void>;
  get(topic: string): Promise<SinkRoute | null>;
  /** true when a route was removed. */
  delete(topic: string): Promise<boolean>;
  /** Every route, sorted by topic. */
  list(): Promise<SinkRoute[]>;
  /** Changes on every write (from any instance), so routers can poll cheaply and reload only on change. */
  version(): Promise<string>;
}
