import type { EpochMs } from '../core/clock.js';

/**
 * A delivery binding as a backend keeps it: the topic's jobs go to `sink` instead of waiting for `reserve`.
 * `Sink` is delivery's sink config (delivery/sink-config.ts), validated there before it is stored; the
 * backend keeps it as JSON and never reads it.
 */
export interface StoredBinding<Sink> {
  topic: string;
  sink: Sink;
  updatedAt: EpochMs;
}

/**
 * Where bindings live, so they survive restarts and several delayq instances share them (SQLite for one
 * process, a Redis hash for many). Separate from the job Store on purpose: bindings are configuration,
 * read rarely and written by operators, and they must not widen the Store boundary.
 */
export interface BindingStore<Sink> {
  open(): Promise<void>;
  close(): Promise<void>;
  /** Creates or replaces the binding of `topic`. */
  set(binding: StoredBinding<Sink>): Promise<void>;
  get(topic: string): Promise<StoredBinding<Sink> | null>;
  /** true when a binding was removed. */
  delete(topic: string): Promise<boolean>;
  /** Every binding, sorted by topic. */
  list(): Promise<StoredBinding<Sink>[]>;
  /** Changes on every write (from any instance), so tables can poll cheaply and reload only on change. */
  version(): Promise<string>;
}
