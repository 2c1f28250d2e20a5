import type { EpochMs } from '../core/clock.js';
import type { SinkConfig } from './sink-config.js';

/** A delivery binding: the topic's jobs go to `sink` instead of waiting for `reserve`. */
export interface DeliveryBinding {
  topic: string;
  sink: SinkConfig;
  updatedAt: EpochMs;
}

/**
 * Where bindings live, so they survive restarts and several delayq instances share them (SQLite for one
 * process, a Redis hash for many). Separate from the job Store on purpose: bindings are configuration,
 * read rarely and written by operators, and they must not widen the Store boundary.
 * Implementations store configs already validated by `parseSinkConfig`.
 */
export interface BindingStore {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Creates or replaces the binding of `topic`. */
  set(binding: DeliveryBinding): Promise<void>;
  get(topic: string): Promise<DeliveryBinding | null>;
  /** true when a binding was removed. */
  delete(topic: string): Promise<boolean>;
  /** Every binding, sorted by topic. */
  list(): Promise<DeliveryBinding[]>;
  /** Changes on every write (from any instance), so tables can poll cheaply and reload only on change. */
  version(): Promise<string>;
}
