/**
 * Proto messages ↔ the HTTP API's shapes. Requests become the HTTP request bodies and are checked with the
 * same TypeBox schemas (protocol/schemas.ts), so the gRPC API validates exactly as the HTTP API does and
 * names fields by the same JSON names (the proto's lowerCamelCase JSON names). Stored jobs become Job
 * messages with the body as its stored JSON text.
 */
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import type { HistoryEntry, Job, Reservation, TopicStatsWithPause } from '../core/job.js';
import { invalid } from '../core/errors.js';
import { toDelayqError } from '../server/error-handler.js';
import type { JobMessage, PushMessage, ReservationMessage } from './messages.js';

type Checker = ReturnType<typeof Compile>;
const checkers = new WeakMap<TSchema, Checker>();

/** Throws the E_VALIDATION error the HTTP API would answer for `value` against `schema`. */
export function validate<T>(schema: TSchema, value: unknown): T {
  let checker = checkers.get(schema);
  if (!checker) {
    checker = Compile(schema);
    checkers.set(schema, checker);
  }
  if (!checker.Check(value)) throw toDelayqError({ validation: checker.Errors(value), validationContext: 'body' });
  return value as T;
}

/** Copies the fields that are set, dropping the synthetic `_field` keys of proto3 optionals. */
function present<T extends object>(message: T, keys: readonly (keyof T)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (message[key] !== undefined && message[key] !== null) out[key as string] = message[key];
  return out;
}

function parseJsonText(text: string, field: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalid(field, `is not JSON text (${(err as Error).message})`);
  }
}

/** A PushRequest message → the HTTP push body (not yet validated). `prefix` names the message in a batch. */
export function pushBodyOf(message: PushMessage, prefix = ''): Record<string, unknown> {
  const body = present(message, [
    'topic',
    'id',
    'tag',
    'bizKey',
    'delayMs',
    'runAt',
    'priority',
    'ttrMs',
    'ttlMs',
    'spreadMs',
    'onExists',
    'maxWaitMs',
    'dedupKey',
    'dedupWindowMs',
    'group',
  ]);
  body['topic'] ??= '';
  if (message.bodyJson !== undefined && message.bodyJson !== '')
    body['body'] = parseJsonText(message.bodyJson, `${prefix}bodyJson`);
  if (message.retry) {
    const retry: Record<string, unknown> = present(message.retry, ['maxAttempts']);
    const backoff = message.retry.backoff;
    if (backoff !== undefined)
      retry['backoff'] = backoff.trim().startsWith('{') ? parseJsonText(backoff, `${prefix}retry.backoff`) : backoff;
    body['retry'] = retry;
  }
  return body;
}

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export function jobMessageOf(job: Job): JobMessage {
  return {
    id: job.id,
    topic: job.topic,
    tag: orUndefined(job.tag),
    bizKey: orUndefined(job.bizKey),
    bodyJson: job.body,
    state: job.state,
    runAt: job.runAt,
    priority: job.priority,
    ttrMs: job.ttrMs,
    ttlMs: orUndefined(job.ttlMs),
    retry: { maxAttempts: job.retry.maxAttempts, backoffJson: JSON.stringify(job.retry.backoff) },
    attempts: job.attempts,
    lastError: orUndefined(job.lastError),
    createdAt: job.createdAt,
    readyAt: orUndefined(job.readyAt),
    reservedAt: orUndefined(job.reservedAt),
    finishedAt: orUndefined(job.finishedAt),
    deadlineAt: orUndefined(job.deadlineAt),
    group: job.group,
  } as JobMessage;
}

export function reservationMessageOf(reservation: Reservation): ReservationMessage {
  return { job: jobMessageOf(reservation.job), token: reservation.token, deadlineAt: reservation.deadlineAt };
}

export function historyMessageOf(entry: HistoryEntry): Record<string, unknown> {
  return { ...entry, reason: orUndefined(entry.reason) };
}

export function topicStatsMessageOf(stats: TopicStatsWithPause): Record<string, unknown> {
  return {
    topic: stats.topic,
    counts: stats.counts,
    nextDueAt: orUndefined(stats.nextDueAt),
    paused: stats.paused,
    pausedUntil: orUndefined(stats.pausedUntil),
  };
}
