/**
 * A topic's flow-control settings (docs/flow-control.md), kept in the store so every process on it follows
 * them: the dispatch rate limit, the bound on each group's reserved jobs and each group's own rate limit. Validation names the bad field
 * (E_VALIDATION → HTTP 400).
 */
import { invalid, type DelayqError } from './errors.js';
import { LIMITS } from './limits.js';

/** At most `perSecond` jobs of the topic handed out per second, with up to `burst` at once after a quiet spell. */
export interface RateLimit {
  /** Tokens added per second (fractions allowed: 0.5 is one job every two seconds). */
  perSecond: number;
  /** The bucket's size: jobs that may go out back to back once it is full. */
  burst: number;
}

export interface TopicSettings {
  /** Absent: jobs go out as fast as consumers take them. */
  rateLimit?: RateLimit;
  /** At most this many jobs of one group reserved at once (docs/flow-control.md "Groups"). Absent: no bound. */
  groupConcurrency?: number;
  /** Each group of the topic handed out at most this fast, a bucket per group. Absent: no bound per group. */
  groupRateLimit?: RateLimit;
}

/** What a caller sends: a field left out or null is not set. */
export interface TopicSettingsInput {
  rateLimit?: { perSecond?: unknown; burst?: unknown } | null | undefined;
  groupConcurrency?: unknown;
  groupRateLimit?: { perSecond?: unknown; burst?: unknown } | null | undefined;
}

/** The burst of a rate limit given without one: one job at a time, evenly spaced. */
export const DEFAULT_RATE_BURST = 1;

/** A rate limit as a caller sent it (`field`: its name in the settings), with the default burst. */
function validateRate(field: string, rate: { perSecond?: unknown; burst?: unknown }): RateLimit {
  const { perSecond, burst = DEFAULT_RATE_BURST } = rate;
  if (
    typeof perSecond !== 'number' ||
    !Number.isFinite(perSecond) ||
    perSecond < LIMITS.rateMinPerSecond ||
    perSecond > LIMITS.rateMaxPerSecond
  )
    throw invalid(
      `${field}.perSecond`,
      `must be a number from ${LIMITS.rateMinPerSecond} to ${LIMITS.rateMaxPerSecond}`,
    );
  if (typeof burst !== 'number' || !Number.isInteger(burst) || burst < 1 || burst > LIMITS.rateMaxBurst)
    throw invalid(`${field}.burst`, `must be an integer from 1 to ${LIMITS.rateMaxBurst}`);
  return { perSecond, burst };
}

/** Checks a topic's settings as a caller sent them; the settings to keep, without unset fields. */
export function validateTopicSettings(input: TopicSettingsInput): TopicSettings {
  const settings: TopicSettings = {};
  if (input.rateLimit !== undefined && input.rateLimit !== null)
    settings.rateLimit = validateRate('rateLimit', input.rateLimit);
  const groups = input.groupConcurrency;
  if (groups !== undefined && groups !== null) {
    if (typeof groups !== 'number' || !Number.isInteger(groups) || groups < 1 || groups > LIMITS.groupConcurrencyMax)
      throw invalid('groupConcurrency', `must be an integer from 1 to ${LIMITS.groupConcurrencyMax}`);
    settings.groupConcurrency = groups;
  }
  if (input.groupRateLimit !== undefined && input.groupRateLimit !== null)
    settings.groupRateLimit = validateRate('groupRateLimit', input.groupRateLimit);
  return settings;
}

/**
 * The refusal of a group or a group setting by a store that does not keep groups (StoreCapabilities.groups):
 * today only a store on a Redis Cluster, as a group's reservations are counted on one master.
 */
export function groupsUnsupported(field: string, storeKind: string): DelayqError {
  return invalid(
    field,
    `groups are not kept by the ${storeKind} store on a Redis Cluster: a group's reservations are counted on one Redis master (docs/flow-control.md "Groups")`,
  );
}

/** True when the settings set nothing (the store then forgets the topic). */
export function isEmptySettings(settings: TopicSettings): boolean {
  return (
    settings.rateLimit === undefined && settings.groupConcurrency === undefined && settings.groupRateLimit === undefined
  );
}
