/**
 * Settling acks (finish, fail, release, touch) in a batch, for the gRPC Ack call and the reserve stream.
 * The shape follows `POST /v1/ack` (CONTRACTS item 3): a malformed ack refuses the whole batch naming
 * `acks[i].field`; a refused ack (stale token, wrong state, an unknown job or one outside the token's scope, the store
 * unreachable) refuses that ack only, with the catalogue error in its result. Acks of one job run in order; others run together.
 * The finishes that are their job's first ack go to the store in one finishMany (server/batch-ack.ts).
 */
import { Type } from 'typebox';
import { isDelayqError, settled } from '../core/errors.js';
import type { Job } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import { JobId, Token } from '../protocol/schemas.js';
import { mayUseTopic, type Principal } from '../server/auth.js';
import { toDelayqError } from '../server/error-handler.js';
import type { DelayqService } from '../service/service.js';
import { jobMessageOf, validate } from './convert.js';
import type { AckMessage, AckResultMessage } from './messages.js';
import { failErrorOf, jsonField } from './outcome-fields.js';

const strict = { additionalProperties: false } as const;

export const AckSchema = Type.Object(
  {
    id: JobId,
    token: Token,
    op: Type.Union([Type.Literal('finish'), Type.Literal('fail'), Type.Literal('release'), Type.Literal('touch')]),
    error: Type.Optional(Type.String()),
    retryDelayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs })),
    bury: Type.Optional(Type.Boolean()),
    ttrMs: Type.Optional(Type.Integer({ minimum: LIMITS.ttrMinMs, maximum: LIMITS.ttrMaxMs })),
    delayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIMITS.maxDelayMs })),
    resultJson: Type.Optional(Type.String()),
    errorCode: Type.Optional(Type.String()),
    errorDetailsJson: Type.Optional(Type.String()),
  },
  strict,
);
const AckBatchSchema = Type.Object({ acks: Type.Array(AckSchema, { maxItems: LIMITS.ackBatchMax }) }, strict);

export interface ValidAck {
  id: string;
  token: string;
  op: 'finish' | 'fail' | 'release' | 'touch';
  error?: string;
  retryDelayMs?: number;
  bury?: boolean;
  ttrMs?: number;
  delayMs?: number;
  resultJson?: string;
  errorCode?: string;
  errorDetailsJson?: string;
}

/** Ack messages → validated acks; throws E_VALIDATION naming `acks[i].field` (or `acks` when too many). */
export function validateAcks(messages: readonly AckMessage[]): ValidAck[] {
  const acks = messages.map((m) => {
    const ack: Record<string, unknown> = { id: m.id ?? '', token: m.token ?? '', op: m.op ?? '' };
    for (const key of [
      'error',
      'retryDelayMs',
      'bury',
      'ttrMs',
      'delayMs',
      'resultJson',
      'errorCode',
      'errorDetailsJson',
    ] as const)
      if (m[key] !== undefined) ack[key] = m[key];
    return ack;
  });
  return validate<{ acks: ValidAck[] }>(AckBatchSchema, { acks }).acks;
}

export interface AckOptions {
  principal: Principal | null;
  /** Include the job after each successful ack. */
  jobs?: boolean;
  /** Topics of jobs the caller is known to hold (reserved on this stream): no lookup needed to authorize. */
  knownTopics?: ReadonlyMap<string, string>;
}

/**
 * A token limited to topics may only settle jobs of those topics (the job is read when its topic is not known);
 * another topic's job is answered as an unknown id, so the answer tells nothing of it.
 */
async function authorize(service: DelayqService, ack: ValidAck, options: AckOptions): Promise<void> {
  if (!options.principal || options.principal.topicPrefixes === null) return;
  const topic = options.knownTopics?.get(ack.id) ?? (await service.get(ack.id)).topic;
  if (!mayUseTopic(options.principal, topic)) throw service.notFound(ack.id);
}

async function settleOne(service: DelayqService, ack: ValidAck, options: AckOptions): Promise<Job> {
  await authorize(service, ack, options);
  switch (ack.op) {
    case 'finish':
      return service.finish(ack.id, ack.token, jsonField(ack.resultJson, 'resultJson'));
    case 'release':
      return service.release(ack.id, ack.token, { delayMs: ack.delayMs });
    case 'touch':
      return service.touch(ack.id, ack.token, ack.ttrMs);
    case 'fail': {
      const failure = {
        error: failErrorOf(ack.error, ack.errorCode, ack.errorDetailsJson) ?? null,
        ...(ack.retryDelayMs === undefined ? {} : { retryDelayMs: ack.retryDelayMs }),
        ...(ack.bury === undefined ? {} : { bury: ack.bury }),
      };
      return (await service.fail(ack.id, ack.token, failure)).job;
    }
  }
}

/** Settles every ack; one result per ack, in order. */
export async function settleAcks(
  service: DelayqService,
  acks: readonly ValidAck[],
  options: AckOptions,
): Promise<AckResultMessage[]> {
  // Only a job's first ack may join the batch, so a later ack of that job still waits for it; a result that is
  // not JSON keeps its ack out, to be refused on its own.
  const parsed = acks.map((ack) => settled(() => jsonField(ack.resultJson, 'resultJson')));
  const seen = new Set<string>();
  const batched = acks.map((ack, i) => {
    const first = !seen.has(ack.id);
    seen.add(ack.id);
    return first && ack.op === 'finish' && !isDelayqError(parsed[i]);
  });
  const authorized = acks.map((ack, i) => (batched[i] ? authorize(service, ack, options) : undefined));
  const finishes = Promise.all(
    authorized.map((a) =>
      a?.then(
        () => true,
        () => false,
      ),
    ),
  ).then(async (ok) => {
    const items = acks.flatMap(({ id, token }, i) =>
      ok[i] === true ? [{ id, token, ...(parsed[i] === undefined ? {} : { result: parsed[i] }) }] : [],
    );
    const answers = items.length ? await service.finishMany(items) : [];
    let k = 0;
    return ok.map((yes) => (yes === true ? answers[k++] : undefined));
  });
  finishes.catch(() => undefined); // each batched ack awaits it and reports its failure as its own
  const finishInBatch = async (i: number): Promise<Job> => {
    await authorized[i];
    const answer = (await finishes)[i]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const lastOfJob = new Map<string, Promise<unknown>>();
  const results = acks.map((ack, i) => {
    const before = lastOfJob.get(ack.id) ?? Promise.resolve();
    const result = before.then(async (): Promise<AckResultMessage> => {
      try {
        const job = batched[i] ? await finishInBatch(i) : await settleOne(service, ack, options);
        return {
          id: ack.id,
          op: ack.op,
          ok: true,
          state: job.state,
          ...(options.jobs ? { job: jobMessageOf(job) } : {}),
        };
      } catch (err) {
        const error = toDelayqError(err);
        const message = error.code === 'E_INTERNAL' ? 'internal error' : error.message;
        return {
          id: ack.id,
          op: ack.op,
          ok: false,
          error: { code: error.code, message, ...(error.field === undefined ? {} : { field: error.field }) },
        };
      }
    });
    lastOfJob.set(
      ack.id,
      result.catch(() => undefined),
    );
    return result;
  });
  return Promise.all(results);
}
