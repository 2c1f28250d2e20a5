/**
 * Settles a batch of acknowledgements (finish, fail, release, touch) for one request. Every item is its
 * own operation with its own outcome: a stale token, or a missing job (a job outside the caller's token
 * scope is answered as one) refuses that item only, and the others still go through. The finishes are settled in one store call
 * (finishMany); the other items run concurrently (the Redis client pipelines them). Results come in request order.
 */
import type { FastifyRequest } from 'fastify';
import { isDelayqError, type DelayqError } from '../core/errors.js';
import type { Job } from '../core/job.js';
import type { ErrorInput } from '../core/job-outcome.js';
import type { Ack, AckResult } from '../protocol/ack-schemas.js';
import type { DelayqService } from '../service/service.js';
import { authorizeJob } from './route-helpers.js';
import { toWireJob } from './wire.js';

export async function settleAcks(
  service: DelayqService,
  request: FastifyRequest,
  acks: readonly Ack[],
  withJobs = false,
): Promise<AckResult[]> {
  const authorized = acks.map((ack) => authorizeAck(service, request, ack));
  // The finishes go to the store together, in one finishMany, once each is authorized; the other ops one by one.
  const batched = acks.map((ack) => ack.op === 'finish');
  const finishing = acks.map((ack, i) =>
    batched[i]
      ? authorized[i]!.then(
          () => true,
          () => false,
        )
      : false,
  );
  const finishes = Promise.all(finishing).then((ok) => {
    const items = acks.filter((ack, i) => ok[i] === true);
    const answers = items.length ? service.finishMany(items) : Promise.resolve([]);
    let k = 0;
    return answers.then((a) => ok.map((yes) => (yes === true ? a[k++]! : undefined)));
  });
  return Promise.all(
    acks.map(async (ack, i) => {
      try {
        await authorized[i];
        const job = batched[i] ? (await finishes)[i]! : await apply(service, ack);
        if (job instanceof Error) throw job;
        return { id: ack.id, op: ack.op, ok: true, state: job.state, ...(withJobs ? { job: toWireJob(job) } : {}) };
      } catch (err) {
        if (!isDelayqError(err)) throw err; // a bug, not an outcome: the whole request answers 500
        return { id: ack.id, op: ack.op, ok: false, error: itemError(err, `acks[${i}]`) };
      }
    }),
  );
}

/** A token limited to topics may only settle jobs it may see: another topic's job is answered as an unknown id. */
function authorizeAck(service: DelayqService, request: FastifyRequest, ack: Ack): Promise<void> {
  return authorizeJob(request, service, ack.id);
}

async function apply(service: DelayqService, ack: Ack): Promise<Job> {
  switch (ack.op) {
    case 'finish':
      return service.finish(ack.id, ack.token, ack.result);
    case 'fail': {
      const failure = {
        ...(ack.error === undefined ? {} : { error: ack.error as ErrorInput }),
        ...(ack.retryDelayMs === undefined ? {} : { retryDelayMs: ack.retryDelayMs }),
        ...(ack.bury === undefined ? {} : { bury: ack.bury }),
      };
      return (await service.fail(ack.id, ack.token, failure)).job;
    }
    case 'release':
      return service.release(ack.id, ack.token, ack.delayMs === undefined ? undefined : { delayMs: ack.delayMs });
    case 'touch':
      return service.touch(ack.id, ack.token, ack.ttrMs);
  }
}

/** Where in the item the fault lies: the token for a stale reservation, the id for a job that cannot be settled. */
function itemError(err: DelayqError, path: string): { code: string; message: string; field?: string } {
  const field =
    err.field !== undefined
      ? err.field.startsWith('acks[')
        ? err.field
        : `${path}.${err.field}`
      : err.code === 'E_TOKEN_MISMATCH'
        ? `${path}.token`
        : err.code === 'E_NOT_FOUND' || err.code === 'E_WRONG_STATE'
          ? `${path}.id`
          : undefined;
  return { code: err.code, message: err.message, ...(field === undefined ? {} : { field }) };
}
