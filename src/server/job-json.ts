/**
 * The JSON text of the answers that carry whole jobs on the hot paths (push, batch push, reserve), written
 * from the stored job directly. A job keeps its body as the JSON text it was pushed as, so the text goes into
 * the answer as it is: no parse into a value and no second stringify, which the schema serializer would need
 * (it sees the body as an unknown value). The text has exactly the fields of JobSchema, in its order; the
 * routes keep their response schemas for validation of the other answers and for the OpenAPI document.
 */
import type { FastifyReply } from 'fastify';
import type { Backoff, Job, Reservation } from '../core/job.js';
import type { AckResult } from '../protocol/ack-schemas.js';
import { pushOutcomeOf } from '../core/push-on-exists.js';
import type { PushResult } from '../store/store.js';

/** The content type Fastify gives the answers it serializes itself: a client sees no difference. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Sends JSON text written here as the answer (a string with a JSON content type is sent as it is). */
export function sendJsonText(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply.status(status).type(JSON_CONTENT_TYPE).send(json);
}

const text = (value: string): string => JSON.stringify(value);
const textOrNull = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));
const numberOrNull = (value: number | null): string => (value === null ? 'null' : String(value));

function backoffJson(backoff: Backoff): string {
  switch (backoff.type) {
    case 'fixed':
      return `{"type":"fixed","delayMs":${backoff.delayMs}}`;
    case 'exponential':
      return `{"type":"exponential","delayMs":${backoff.delayMs},"factor":${backoff.factor},"maxDelayMs":${backoff.maxDelayMs}}`;
    case 'list':
      return `{"type":"list","delaysMs":[${backoff.delaysMs.join(',')}]}`;
  }
}

/** A job as the API shows it (WireJob): the stored body text is the `body` value. */
export function jobJson(job: Job): string {
  return (
    `{"id":${text(job.id)},"topic":${text(job.topic)},"tag":${textOrNull(job.tag)},"bizKey":${textOrNull(job.bizKey)},` +
    `"body":${job.body},"state":"${job.state}","runAt":${job.runAt},"priority":${job.priority},"ttrMs":${job.ttrMs},` +
    `"ttlMs":${numberOrNull(job.ttlMs)},"retry":{"maxAttempts":${job.retry.maxAttempts},"backoff":${backoffJson(job.retry.backoff)}},` +
    `"attempts":${job.attempts},"lastError":${textOrNull(job.lastError)},"createdAt":${job.createdAt},` +
    `"readyAt":${numberOrNull(job.readyAt)},"reservedAt":${numberOrNull(job.reservedAt)},` +
    `"finishedAt":${numberOrNull(job.finishedAt)},"deadlineAt":${numberOrNull(job.deadlineAt)}` +
    (job.group === undefined ? '}' : `,"group":${text(job.group)}}`)
  );
}

/** PushResponse. */
export function pushAnswerJson(result: PushResult): string {
  return `{"created":${result.created},"outcome":"${pushOutcomeOf(result)}","job":${jobJson(result.job)}}`;
}

/** PushBatchResponse. */
export function pushBatchAnswerJson(results: readonly PushResult[]): string {
  return `{"results":[${results.map(pushAnswerJson).join(',')}]}`;
}

function reservationJson(r: Reservation): string {
  return `{"job":${jobJson(r.job)},"token":${text(r.token)},"deadlineAt":${r.deadlineAt}}`;
}

/**
 * ReserveAndAckResponse. The ack results are small objects built field by field by batch-ack.ts (no job
 * in them on this route), so JSON.stringify writes exactly their schema's fields.
 */
export function reserveAnswerJson(
  reservations: readonly Reservation[],
  acks: readonly AckResult[] | undefined,
): string {
  const list = `{"reservations":[${reservations.map(reservationJson).join(',')}]`;
  return acks === undefined ? `${list}}` : `${list},"acks":${JSON.stringify(acks)}}`;
}
