/**
 * The unary calls of the Delayq gRPC service, each one the HTTP route of the same name over the same
 * DelayqService: same schemas, same topic scopes (routes/jobs.ts, routes/reservations.ts, routes/topics.ts,
 * routes/journal.ts), same catalogue errors, mapped to gRPC statuses by status.ts.
 */
import type { handleUnaryCall, ServerUnaryCall, sendUnaryData, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { PushRequest as HttpPushRequest } from '../protocol/schemas.js';
import type { FailRequest as HttpFailRequest } from '../protocol/reservation-schemas.js';
import { Type } from 'typebox';
import { CancelRequest, JobId, PushBatchRequest, PushRequest, RescheduleRequest } from '../protocol/schemas.js';
import { FailRequest, ReleaseRequest, TokenRequest, TouchRequest } from '../protocol/reservation-schemas.js';
import { ClearAllRequest } from '../protocol/journal-schemas.js';
import { authorizeAllTopics, authorizeTopic, mayUseTopic } from '../server/auth.js';
import { authorizeJob, visibleJob } from '../server/route-helpers.js';
import type { DelayqService } from '../service/service.js';
import { settleAcks, validateAcks } from './acks.js';
import { failErrorOf, jsonField } from './outcome-fields.js';
import { pushOutcomeOf } from '../core/push-on-exists.js';
import type { CallGuard, GrpcCaller } from './call-guard.js';
import { historyMessageOf, jobMessageOf, pushBodyOf, topicStatsMessageOf, validate } from './convert.js';
import type { AckMessage, PushMessage } from './messages.js';
import { toGrpcStatus } from './status.js';

export interface HandlerContext {
  service: DelayqService;
  guard: CallGuard;
  logger: Logger;
}

export type Handler = (request: any, caller: GrpcCaller) => Promise<unknown>;

/** Wraps a handler: admits the caller, runs it, ends the call with its answer or the mapped error status. */
export function unary(context: HandlerContext, name: string, handler: Handler): handleUnaryCall<unknown, unknown> {
  return (call: ServerUnaryCall<unknown, unknown>, callback: sendUnaryData<unknown>) => {
    let caller: GrpcCaller;
    try {
      caller = context.guard.admit(call.metadata, call.getPeer());
    } catch (err) {
      callback(toGrpcStatus(err));
      return;
    }
    handler(call.request, caller).then(
      (answer) => callback(null, answer),
      (err: unknown) => {
        const status = toGrpcStatus(err);
        if (status.details === 'internal error') context.logger.error({ err, call: name }, 'gRPC call failed');
        callback(status);
      },
    );
  };
}

/** The id of a job-addressed call, checked as the HTTP path parameter is. */
export function jobIdOf(request: { id?: string }): string {
  return validate<{ id: string }>(IdOnly, { id: request.id ?? '' }).id;
}
const IdOnly = Type.Object({ id: JobId });

/** `token` and the other body fields of a job-addressed call, without the id. */
export function bodyOf(request: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of keys) if (request[key] !== undefined && request[key] !== null) body[key] = request[key];
  return body;
}

export function unaryHandlers(context: HandlerContext): UntypedServiceImplementation {
  const { service } = context;
  return {
    Push: unary(context, 'Push', async (request: PushMessage, caller) => {
      const body = validate<HttpPushRequest>(PushRequest, pushBodyOf(request));
      authorizeTopic(caller, body.topic);
      const result = await service.push(body);
      return { created: result.created, outcome: pushOutcomeOf(result), job: jobMessageOf(result.job) };
    }),

    PushBatch: unary(context, 'PushBatch', async (request: { jobs: PushMessage[] }, caller) => {
      const jobs = request.jobs.map((job, i) => pushBodyOf(job, `jobs[${i}].`));
      const body = validate<{ jobs: HttpPushRequest[] }>(PushBatchRequest, { jobs });
      body.jobs.forEach((job, i) => authorizeTopic(caller, job.topic, `jobs[${i}].topic`));
      const results = await service.pushBatch(body.jobs);
      return {
        results: results.map((r) => ({ created: r.created, outcome: pushOutcomeOf(r), job: jobMessageOf(r.job) })),
      };
    }),

    Get: unary(context, 'Get', async (request: { id?: string; history?: boolean }, caller) => {
      const job = await visibleJob(caller, service, jobIdOf(request));
      const history = request.history ? (await service.history(job.id)).map(historyMessageOf) : [];
      return { job: jobMessageOf(job), history };
    }),

    Cancel: unary(context, 'Cancel', async (request: { id?: string; reason?: string }, caller) => {
      const id = jobIdOf(request);
      const body = validate<{ reason?: string }>(CancelRequest, bodyOf(request, ['reason']));
      await authorizeJob(caller, service, id);
      const { job, dispatched } = await service.cancel(id, body.reason);
      return { job: jobMessageOf(job), dispatched, attempts: job.attempts };
    }),

    Reschedule: unary(context, 'Reschedule', async (request: Record<string, unknown>, caller) => {
      const id = jobIdOf(request);
      const when = validate<{ delayMs?: number; runAt?: number }>(
        RescheduleRequest,
        bodyOf(request, ['delayMs', 'runAt']),
      );
      await authorizeJob(caller, service, id);
      return { job: jobMessageOf(await service.reschedule(id, when)) };
    }),

    RunNow: unary(context, 'RunNow', async (request: Record<string, unknown>, caller) => {
      const id = jobIdOf(request);
      await authorizeJob(caller, service, id);
      return { job: jobMessageOf(await service.runNow(id)) };
    }),

    Touch: unary(context, 'Touch', async (request: Record<string, unknown>, caller) => {
      const id = jobIdOf(request);
      const body = validate<{ token: string; ttrMs?: number }>(TouchRequest, bodyOf(request, ['token', 'ttrMs']));
      await authorizeJob(caller, service, id);
      return { job: jobMessageOf(await service.touch(id, body.token, body.ttrMs)) };
    }),

    Finish: unary(context, 'Finish', async (request: Record<string, unknown>, caller) => {
      const id = jobIdOf(request);
      const { token } = validate<{ token: string }>(TokenRequest, { token: request['token'] ?? '' });
      const result = jsonField(request['resultJson'] as string | undefined, 'resultJson');
      await authorizeJob(caller, service, id);
      return { job: jobMessageOf(await service.finish(id, token, result)) };
    }),

    Fail: unary(context, 'Fail', async (request: Record<string, unknown>, caller) => {
      const id = jobIdOf(request);
      const { token, ...failure } = validate<HttpFailRequest>(
        FailRequest,
        bodyOf(request, ['token', 'error', 'retryDelayMs', 'bury']),
      );
      const error = failErrorOf(
        failure.error as string | null | undefined,
        request['errorCode'] as string | undefined,
        request['errorDetailsJson'] as string | undefined,
      );
      await authorizeJob(caller, service, id);
      const { job, decision } = await service.fail(id, token, {
        ...failure,
        ...(error === undefined ? {} : { error }),
      });
      return {
        job: jobMessageOf(job),
        action: decision.action,
        ...(decision.action === 'retry' ? { retryAt: decision.runAt } : {}),
      };
    }),

    Release: unary(context, 'Release', async (request: Record<string, unknown>, caller) => {
      const id = jobIdOf(request);
      const { token, delayMs } = validate<{ token: string; delayMs?: number }>(ReleaseRequest, {
        token: '',
        ...bodyOf(request, ['token', 'delayMs']),
      });
      await authorizeJob(caller, service, id);
      return { job: jobMessageOf(await service.release(id, token, { delayMs })) };
    }),

    Ack: unary(context, 'Ack', async (request: { acks: AckMessage[]; jobs?: boolean }, caller) => {
      const acks = validateAcks(request.acks);
      return { results: await settleAcks(service, acks, { principal: caller.principal, jobs: request.jobs === true }) };
    }),

    Stats: unary(context, 'Stats', async (_request: unknown, caller) => {
      const topics = (await service.topics.stats()).filter((t) => mayUseTopic(caller.principal, t.topic));
      return { topics: topics.map(topicStatsMessageOf) };
    }),

    Restore: unary(context, 'Restore', async (request: { expire?: boolean }, caller) => {
      authorizeAllTopics(caller);
      return service.journal.restore({ expire: request.expire ?? true });
    }),

    ClearAll: unary(context, 'ClearAll', async (request: { confirm?: string; reason?: string }, caller) => {
      authorizeAllTopics(caller);
      const body = validate<{ confirm: string; reason?: string }>(ClearAllRequest, {
        confirm: '',
        ...bodyOf(request, ['confirm', 'reason']),
      });
      return service.journal.clearAll({
        confirm: body.confirm,
        reason: body.reason,
        actor: caller.principal?.id ?? 'anonymous',
      });
    }),
  };
}
