import type { NewJob } from '../../core/job.js';
import type { Store } from '../../store/store.js';
import type { aJob } from '../jobs.js';

/** One test of the contract: a title, and a body that fails by throwing (an `expect` that does not hold). */
export type ContractTest = (title: string, fn: () => Promise<void>) => void;

/** What each test of the contract gets: an open store, two topics of its own, and jobs of the first one. */
export interface ContractContext {
  store: Store;
  /** A topic no other test uses, so stores that share a server cannot see each other's jobs. */
  topic: string;
  other: string;
  /** A valid job of `topic`, pushed at the contract's start time unless told otherwise. */
  job: (overrides?: Parameters<typeof aJob>[0]) => NewJob;
}
