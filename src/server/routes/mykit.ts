/**
 * The mykit-delay endpoints of seed 000, so its clients can switch without changes (docs/compat.md).
 * Like the original, every answer is HTTP 200 with `{success, data, message, code}`; a refusal is
 * `success: false, code: 500` with the catalogue code and reason in `message`, but for an access refusal,
 * whose HTTP status (401, 403, 429) is also its `code`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Job } from '../../core/job.js';
import { invalid } from '../../core/errors.js';
import { Topic } from '../../protocol/schemas.js';
import { RESERVE_MAX_WAIT_MS } from '../../protocol/reservation-schemas.js';
import type { RestoreHandler, RouteContext } from '../route-context.js';
import { authorizeAllTopics, authorizeTopic } from '../auth.js';
import { deleteById, finishById, seedBody, type CompatReservations } from '../compat-reservations.js';
import { compatStatus } from '../compat-status.js';
import { toDelayqError } from '../error-handler.js';
import { authorizeJob } from '../route-helpers.js';
import { reserveForRequest } from '../reserve-for-request.js';

export interface MykitOptions extends RouteContext {
  compat: CompatReservations;
  restore?: RestoreHandler | undefined;
}

const MykitResponse = Type.Object({
  success: Type.Boolean(),
  data: Type.Unknown(),
  message: Type.String(),
  code: Type.Integer({
    description: '200 on success, 500 on a refusal; an access refusal carries its HTTP status (401, 403, 429)',
  }),
});

/** The job fields of seed 000; unknown fields are ignored, as the original's JSON binding did. */
const MykitPush = Type.Object({
  topic: Type.String(),
  id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
  body: Type.Optional(Type.Unknown()),
  delay: Type.Optional(Type.Integer({ description: 'ms after createTime' })),
  createTime: Type.Optional(Type.Integer({ description: 'epoch ms; default now' })),
  priority: Type.Optional(Type.Integer()),
  bizKey: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  subtopic: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  ttl: Type.Optional(Type.Unknown({ description: 'reserved field of seed 000; accepted and ignored' })),
  status: Type.Optional(Type.Unknown({ description: 'reserved field of seed 000; accepted and ignored' })),
});

const JobIdQuery = Type.Object({ jobId: Type.Optional(Type.String()) });
const ok = (data: unknown, message = 'success') => ({ success: true, data, message, code: 200 });
/** A refusal: `code` 500 as in seed 000, or the HTTP status of an access refusal (401, 403, 429: compat-status.ts). */
const refused = (message: string, code = 500) => ({ success: false, data: null, message, code });
const NO_JOURNAL = 'restore needs the SQL journal, which this deployment does not have (see docs/compat.md)';

/** mykit's Status ordinals (WaitPut, Delay, Ready, Finish, Delete), as delayq states map onto them. */
const STATUS: Record<Job['state'], number> = {
  delayed: 1,
  ready: 2,
  reserved: 2,
  finished: 3,
  cancelled: 4,
  dead: 4,
  expired: 4,
};

function mykitJob(job: Job) {
  return {
    id: job.id,
    topic: job.topic,
    subtopic: job.tag ?? '',
    bizKey: job.bizKey,
    body: seedBody(job),
    delay: job.runAt - job.createdAt,
    createTime: job.createdAt,
    priority: job.priority,
    ttl: job.ttlMs,
    status: STATUS[job.state],
  };
}

function requireJobId(jobId: string | undefined): string {
  if (jobId === undefined || jobId === '') throw invalid('jobId', 'is required');
  return jobId;
}

export const mykitRoutes: FastifyPluginAsyncTypebox<MykitOptions> = async (app, { service, compat, restore }) => {
  app.setErrorHandler((err, request, reply) => {
    const error = toDelayqError(err);
    request.log.debug({ code: error.code, field: error.field }, 'mykit request refused');
    const status = compatStatus(error);
    return reply.status(status).send(refused(`${error.code}: ${error.message}`, status === 200 ? 500 : status));
  });
  const base = (summary: string) => ({
    tags: ['compat'],
    summary: `mykit-delay: ${summary}`,
    response: { 200: MykitResponse },
  });

  app.post('/push', { schema: { ...base('push a job; data = its id'), body: MykitPush } }, async (request) => {
    const input = request.body;
    authorizeTopic(request, input.topic);
    const now = service.clock.now(); // the service's clock: Date.now() may run ahead of its steady clock
    const runAt = (input.createTime ?? now) + (input.delay ?? 0);
    const result = await service.push({
      id: input.id === undefined || input.id === '' ? undefined : String(input.id),
      topic: input.topic,
      body: input.body,
      tag: input.subtopic,
      bizKey: input.bizKey,
      priority: input.priority,
      // A runAt already passed (an old createTime) means "now", as in the original.
      ...(input.createTime === undefined ? { delayMs: input.delay ?? 0 } : { runAt: Math.max(runAt, now) }),
    });
    return ok(result.job.id);
  });

  app.get(
    '/delete',
    {
      config: { changesState: true },
      schema: {
        ...base('cancel a job (data: {dispatched, attempts} when it was cancelled, null when it had ended)'),
        querystring: JobIdQuery,
      },
    },
    async (request) => {
      const id = requireJobId(request.query.jobId);
      await authorizeJob(request, service, id);
      const cancelled = await deleteById(service, compat, id);
      return ok(cancelled ? { dispatched: cancelled.dispatched, attempts: cancelled.job.attempts } : null);
    },
  );

  app.get(
    '/finish',
    {
      config: { changesState: true },
      schema: { ...base('finish a job reserved by /get, or cancel one not yet delivered'), querystring: JobIdQuery },
    },
    async (request) => {
      const id = requireJobId(request.query.jobId);
      await authorizeJob(request, service, id);
      await finishById(service, compat, id);
      return ok(null);
    },
  );

  app.get(
    '/get/:topic',
    {
      config: { changesState: true },
      schema: {
        ...base('reserve one ready job of a topic (data = the job, or null)'),
        params: Type.Object({ topic: Topic }),
        querystring: Type.Object({ waitMs: Type.Optional(Type.Integer({ minimum: 0, maximum: RESERVE_MAX_WAIT_MS })) }),
      },
    },
    async (request, reply) => {
      authorizeTopic(request, request.params.topic);
      const [reservation] = await reserveForRequest(service, request, reply, {
        topics: [request.params.topic],
        count: 1,
        waitMs: request.query.waitMs ?? 0,
      });
      if (!reservation) return ok(null, 'no job ready');
      compat.remember(reservation.job.id, reservation.token, reservation.deadlineAt);
      return ok(mykitJob(reservation.job));
    },
  );

  // Restore and clear-all span every topic: tokens limited to some topics may not call them. Matched on the
  // route pattern, not the raw URL, which an encoded path (`/%63learAll`) would slip past.
  app.addHook('preHandler', async (request) => {
    if (/^\/(reStore|clearAll)/.test(request.routeOptions.url ?? '')) authorizeAllTopics(request);
  });
  const restoreAnswer = async (expire: string | undefined) => {
    if (expire !== undefined && expire !== 'true' && expire !== 'false')
      throw invalid('expire', 'must be true or false');
    if (!restore) return refused(NO_JOURNAL);
    return ok(await restore.restore(expire !== 'false'));
  };
  const restoreJobAnswer = async (id: string) =>
    restore ? ok(await restore.restoreJob(requireJobId(id))) : refused(NO_JOURNAL);

  app.get(
    '/reStore',
    {
      config: { changesState: true },
      schema: {
        ...base('restore unfinished jobs from the journal'),
        querystring: Type.Object({ expire: Type.Optional(Type.String()) }),
      },
    },
    async (request) => restoreAnswer(request.query.expire),
  );
  app.get(
    '/reStore/:id',
    {
      config: { changesState: true },
      schema: { ...base('restore one job from the journal'), params: Type.Object({ id: Type.String() }) },
    },
    async (request) => restoreJobAnswer(request.params.id),
  );
  app.get(
    '/reStoreJob',
    {
      config: { changesState: true },
      schema: { ...base('restore one job from the journal'), querystring: JobIdQuery },
    },
    async (request) => restoreJobAnswer(request.query.jobId ?? ''),
  );
  app.get(
    '/clearAll',
    {
      config: { changesState: true },
      schema: {
        ...base('cancel every unfinished job; guarded: ?confirm=clear-all'),
        querystring: Type.Object({ confirm: Type.Optional(Type.String({ maxLength: 32 })) }),
      },
    },
    async (request) =>
      restore
        ? ok(await restore.clearAll(request.query.confirm, request.principal?.id ?? 'anonymous'))
        : refused(NO_JOURNAL),
  );
};

export type { RestoreHandler } from '../route-context.js';
