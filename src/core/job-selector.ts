/**
 * A selector picks jobs for a bulk operation (cancel, reschedule, redrive, delete): by topic and any of
 * bizKey, tag, state and a due-time range. It must name a topic, a bizKey or a tag, so that no call
 * reaches every job of the store by accident.
 */
import type { EpochMs } from './clock.js';
import { invalid } from './errors.js';
import { JOB_STATES, type JobState } from './job.js';
import { CONTROL_CHARS_RE, LIMITS, TOPIC_RE } from './limits.js';

export interface JobSelector {
  topic: string | null;
  bizKey: string | null;
  tag: string | null;
  state: JobState | null;
  /** Due time (runAt) range [dueFrom, dueTo); null = open. */
  dueFrom: EpochMs | null;
  dueTo: EpochMs | null;
}

export interface SelectorInput {
  topic?: string | undefined;
  bizKey?: string | undefined;
  tag?: string | undefined;
  state?: string | undefined;
  dueFrom?: number | undefined;
  dueTo?: number | undefined;
}

const label = (value: string | undefined, field: string): string | null => {
  if (value === undefined) return null;
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > LIMITS.labelMaxLength ||
    CONTROL_CHARS_RE.test(value)
  )
    throw invalid(field, `must be 1–${LIMITS.labelMaxLength} characters without control characters`);
  return value;
};

const time = (value: number | undefined, field: string): EpochMs | null => {
  if (value === undefined) return null;
  if (!Number.isSafeInteger(value) || value < 0) throw invalid(field, 'must be epoch ms (an integer ≥ 0)');
  return value;
};

/** Validates a selector; each error names `selector.<field>` (or the prefix given). */
export function normalizeSelector(input: SelectorInput | undefined, prefix = 'selector'): JobSelector {
  if (input === undefined || input === null || typeof input !== 'object') throw invalid(prefix, 'is required');
  if (input.topic !== undefined && (typeof input.topic !== 'string' || !TOPIC_RE.test(input.topic)))
    throw invalid(`${prefix}.topic`, 'must be a topic name');
  if (input.state !== undefined && !(JOB_STATES as readonly string[]).includes(input.state))
    throw invalid(`${prefix}.state`, `must be one of ${JOB_STATES.join(', ')}`);
  const selector: JobSelector = {
    topic: input.topic ?? null,
    bizKey: label(input.bizKey, `${prefix}.bizKey`),
    tag: label(input.tag, `${prefix}.tag`),
    state: (input.state as JobState | undefined) ?? null,
    dueFrom: time(input.dueFrom, `${prefix}.dueFrom`),
    dueTo: time(input.dueTo, `${prefix}.dueTo`),
  };
  if (selector.topic === null && selector.bizKey === null && selector.tag === null)
    throw invalid(`${prefix}.topic`, 'name a topic, a bizKey or a tag (a selector may not reach every job)');
  if (selector.dueFrom !== null && selector.dueTo !== null && selector.dueFrom >= selector.dueTo)
    throw invalid(`${prefix}.dueTo`, 'must be after dueFrom');
  return selector;
}

/** Whether a job matches the selector's due-time range (the other fields are matched by the store's list). */
export function inDueRange(selector: JobSelector, runAt: EpochMs): boolean {
  return (
    (selector.dueFrom === null || runAt >= selector.dueFrom) && (selector.dueTo === null || runAt < selector.dueTo)
  );
}
