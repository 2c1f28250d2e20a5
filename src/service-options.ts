/** What a DelayqService is built from, and the requests of its consumer calls that carry more than an id. */
import type { Clock } from './core/clock.js';
import type { JobDefaults } from './core/job-input.js';
import type { Logger } from 'pino';
import type { LoaderOptions } from './scheduler/loader.js';
import type { SchedulerOptions } from './scheduler/scheduler.js';
import type { Store } from './store/store.js';
import type { ErrorInput, RetentionInput } from './core/job-outcome.js';

export interface ServiceOptions {
  store: Store;
  clock?: Clock;
  /** Name of this process in job history. @defaultValue host:pid */
  nodeId?: string;
  jobDefaults?: Partial<JobDefaults>;
  scheduler?: Partial<SchedulerOptions>;
  logger?: Logger;
  /** Start the timer on `start()`. Off for processes that only serve reads. @defaultValue true */
  runScheduler?: boolean;
  /** The journal loader (tiering, loss detection, prompt purge), when the store is journaled. */
  loader?: Partial<LoaderOptions>;
  /** Retention of ended jobs per topic, for jobs pushed without their own (config jobs.retentionByTopic). */
  retentionByTopic?: Readonly<Record<string, RetentionInput>>;
}

export interface ReserveRequest {
  topics: readonly string[];
  /** @defaultValue 1 */
  count?: number;
  /** Long-poll: how long to wait for a job when none is ready. @defaultValue 0 */
  waitMs?: number;
  /** Overrides the jobs' own TTR for this reservation. */
  ttrMs?: number;
}

export interface FailRequest {
  /** A text, or a structured error kept with the job (its message is the job's lastError). */
  error?: ErrorInput | undefined;
  /** Wait this long before the retry instead of the job's backoff. */
  retryDelayMs?: number;
  /** Bury at once, whatever attempts remain. */
  bury?: boolean;
}
