import { DEFAULT_RETRY_POLICY } from '../../config.js';
import {
  JOB_EVENTS,
  JOB_STATES,
  type HistoryEntry,
  type Job,
  type JobState,
  type RetryPolicy,
} from '../../core/job.js';

/**
 * A stored record decoded by unpackRecord (packed-record.ts; layout: lua/record.lua): its fields in this
 * fixed order, null for absent. The history (position 18) is decoded only when asked for.
 */
export type RecordArray = unknown[];

/** States and events travel as 1-based indexes into JOB_STATES / JOB_EVENTS (one byte in the record). */
export const stateCode = (state: JobState): number => JOB_STATES.indexOf(state) + 1;
export const stateOf = (code: number): JobState => JOB_STATES[code - 1]!;

/** Stands for null in string ARGV (tags, keys and errors never hold control characters). */
export const NULL_ARG = '\0';

export const nul = (v: string | null | undefined): string => v ?? NULL_ARG;

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function recordToJob(id: string, r: RecordArray): Job {
  return {
    id,
    topic: String(r[0]),
    tag: strOrNull(r[1]),
    bizKey: strOrNull(r[2]),
    body: String(r[3]),
    state: stateOf(num(r[4])),
    runAt: num(r[5]),
    priority: num(r[6]),
    ttrMs: num(r[7]),
    ttlMs: numOrNull(r[8]),
    retry: decodeRetry(String(r[9])),
    attempts: num(r[10]),
    lastError: strOrNull(r[11]),
    createdAt: num(r[14]),
    readyAt: numOrNull(r[15]),
    reservedAt: numOrNull(r[16]),
    finishedAt: numOrNull(r[17]),
    deadlineAt: numOrNull(r[13]),
  };
}

export function recordToken(r: RecordArray): string | null {
  return strOrNull(r[12]);
}

/** History entries come decoded as {at, event, state, attempt, node index, reason}. */
export function recordHistory(r: RecordArray, nodeName: (index: number) => string): HistoryEntry[] {
  const entries = (r[18] ?? []) as unknown[][];
  return entries.map((e) => ({
    at: num(e[0]),
    event: JOB_EVENTS[num(e[1]) - 1]!,
    state: stateOf(num(e[2])),
    attempt: num(e[3]),
    node: nodeName(num(e[4])),
    reason: strOrNull(e[5]),
  }));
}

/**
 * A retry policy in a few bytes instead of ~90 of JSON: `f|max|delay`, `e|max|delay|factor|maxDelay`,
 * `l|max|d1,d2,…`, and '' for the default policy (most jobs). Anything else is kept as JSON, so an
 * unknown future shape still round-trips.
 */
export function encodeRetry(policy: RetryPolicy): string {
  // Most pushes share the configured default policy object: its text is made once, not per push.
  if (policy === lastPolicy) return lastText;
  const text = retryText(policy);
  lastPolicy = policy;
  lastText = text === DEFAULT_RETRY_TEXT ? '' : text;
  return lastText;
}
let lastPolicy: RetryPolicy | undefined;
let lastText = '';

function retryText(policy: RetryPolicy): string {
  const b = policy.backoff;
  switch (b.type) {
    case 'fixed':
      return `f|${policy.maxAttempts}|${b.delayMs}`;
    case 'exponential':
      return `e|${policy.maxAttempts}|${b.delayMs}|${b.factor}|${b.maxDelayMs}`;
    case 'list':
      return `l|${policy.maxAttempts}|${b.delaysMs.join(',')}`;
    default:
      return JSON.stringify(policy);
  }
}

const DEFAULT_RETRY_TEXT = retryText(DEFAULT_RETRY_POLICY);

/** A fresh copy of the default policy (structuredClone costs more than the rest of a job's decoding). */
function defaultRetry(): RetryPolicy {
  const { maxAttempts, backoff } = DEFAULT_RETRY_POLICY;
  return {
    maxAttempts,
    backoff: backoff.type === 'list' ? { type: 'list', delaysMs: [...backoff.delaysMs] } : { ...backoff },
  };
}

export function decodeRetry(text: string): RetryPolicy {
  if (text === '') return defaultRetry();
  const [type, max, ...rest] = text.split('|');
  const maxAttempts = Number(max);
  switch (type) {
    case 'f':
      return { maxAttempts, backoff: { type: 'fixed', delayMs: Number(rest[0]) } };
    case 'e':
      return {
        maxAttempts,
        backoff: {
          type: 'exponential',
          delayMs: Number(rest[0]),
          factor: Number(rest[1]),
          maxDelayMs: Number(rest[2]),
        },
      };
    case 'l':
      return { maxAttempts, backoff: { type: 'list', delaysMs: rest[0] ? rest[0].split(',').map(Number) : [] } };
    default:
      return JSON.parse(text) as RetryPolicy;
  }
}
