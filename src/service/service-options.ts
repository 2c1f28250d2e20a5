/**
 * What a DelayqService is built from, and the requests of its calls that carry more than an id, with the
 * checks that name a request's bad field (E_VALIDATION) before the store is asked.
 */
import type { Clock } from '../core/clock.js';
import { invalid } from '../core/errors.js';
import { validateTopic, type JobDefaults, type PushInput } from '../core/job-input.js';
import { LIMITS } from '../core/limits.js';
import type { Logger } from 'pino';
import type { LoaderOptions } from '../timer/loader.js';
import type { DueTimerOptions } from '../timer/due-timer.js';
import type { Store } from '../store/store.js';
import type { ErrorInput, RetentionInput } from '../core/job-outcome.js';

export interface ServiceOptions {
  store: Store;
  clock?: Clock;
  /** Name of this process in job history. @defaultValue host:pid */
  nodeId?: string;
  jobDefaults?: Partial<JobDefaults>;
  /** The due timer's settings (config's `scheduler` section). */
  timer?: Partial<DueTimerOptions>;
  logger?: Logger;
  /** Start the timer on `start()`. Off for processes that only serve reads. @defaultValue true */
  runTimer?: boolean;
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
  /** With `bury`: the buried job takes this priority (beanstalkd's bury). */
  priority?: number;
}

/** A reserve request checked against LIMITS, with its defaults filled in. */
export function checkReserve(request: ReserveRequest): { topics: string[]; count: number; waitMs: number } {
  const { topics } = request;
  if (!Array.isArray(topics) || topics.length === 0) throw invalid('topics', 'must name at least one topic');
  if (topics.length > LIMITS.reserveMaxTopics)
    throw invalid('topics', `must name at most ${LIMITS.reserveMaxTopics} topics`);
  const count = request.count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > LIMITS.reserveMaxCount) {
    throw invalid('count', `must be an integer from 1 to ${LIMITS.reserveMaxCount}`);
  }
  const waitMs = request.waitMs ?? 0;
  if (!Number.isFinite(waitMs) || waitMs < 0 || waitMs > LIMITS.reserveMaxWaitMs) {
    throw invalid('waitMs', `must be from 0 to ${LIMITS.reserveMaxWaitMs} ms`);
  }
  if (request.ttrMs !== undefined && (request.ttrMs < LIMITS.ttrMinMs || request.ttrMs > LIMITS.ttrMaxMs)) {
    throw invalid('ttrMs', `must be from ${LIMITS.ttrMinMs} to ${LIMITS.ttrMaxMs} ms`);
  }
  return { topics: topics.map((t, i) => validateTopic(t, `topics[${i}]`)), count, waitMs };
}

/** The new due time of a reschedule: `delayMs` or `runAt` (with its optional `timeZone`), as push takes them. */
export function pickTime(when: {
  delayMs?: number | string;
  runAt?: number | string;
  timeZone?: string;
}): Pick<PushInput, 'delayMs' | 'runAt' | 'timeZone'> {
  if (when.delayMs === undefined && when.runAt === undefined) throw invalid('delayMs', 'give delayMs or runAt');
  return { delayMs: when.delayMs, runAt: when.runAt, timeZone: when.timeZone };
}
