import type { EpochMs } from '../core/clock.js';
import type { Store } from '../store/store.js';

/** What the service's concept objects (outcomes, retention, bulk, listings) need of DelayqService to call the store. */
export interface StoreCalls {
  readonly store: Store;
  now(): EpochMs;
  /** The service's guard: refused while closing, tracked for graceful close. */
  run<T>(operation: () => Promise<T>): Promise<T>;
}
