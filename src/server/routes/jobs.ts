/** Producers and operators: push (one, batch), get, history, cancel, reschedule, run now, list, purge. */
import {
  CancelRequest,
  CancelResponse,
  CountResponse,
  GetJobQuery,
  GetJobResponse,
  HistoryResponse,
  JobIdParams,
  JobResponse,
  ListQuery,
  ListResponse,
  PurgeRequest,
  PushBatchRequest,
  PushBatchResponse,
  PushRequest,
  PushResponse,
  RescheduleRequest,
  RunNowRequest,
} from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeAllTopics, authorizeTopic } from '../auth.js';
import { authorizeJob, errorResponses, visibleJob } from '../route-helpers.js';
import { toWireJob, toWireOutcome } from '../wire.js';
import { pushAnswerJson, sendJsonText, pushBatchAnswerJson } from '../job-json.js';
import { BY_ID, isScoped, pageOverTopics, topicsInScope } from '../scoped-listing.js';

export function registerJobRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.post(
    '/v1/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Push a job (201 when created, 200 when the id existed)',
        body: PushRequest,
        response: { 200: PushResponse, 201: PushResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      authorizeTopic(request, request.body.topic);
      const result = service.retention.retains(request.body)
        ? (await service.retention.pushBatch([request.body], 'single'))[0]!
        : await service.push(request.body);
      return sendJsonText(reply, result.created ? 201 : 200, pushAnswerJson(result));
    },
  );

  app.post(
    '/v1/jobs/batch',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Push up to 1000 jobs at once (all validated before any is stored)',
        description:
          'An id that a job of another topic holds is 409 E_CONFLICT naming `jobs[i].id`; it is found as the batch ' +
          'is stored, so the other jobs are stored, and `error.details.created` lists the indices this request created.',
        body: PushBatchRequest,
        response: { 200: PushBatchResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      request.body.jobs.forEach((job, i) => authorizeTopic(request, job.topic, `jobs[${i}].topic`));
      const results = await service.retention.pushBatch(request.body.jobs);
      return sendJsonText(reply, 200, pushBatchAnswerJson(results));
    },
  );

  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        tags: ['jobs'],
        summary: 'A job, optionally with its history',
        params: JobIdParams,
        querystring: GetJobQuery,
        response: { 200: GetJobResponse, ...errorResponses },
      },
    },
    async (request) => {
      const job = await visibleJob(request, service, request.params.id);
      const outcome = await service.outcomes.outcomeOf(job.id);
      const shown = { job: toWireJob(job), ...(outcome ? { outcome: toWireOutcome(outcome) } : {}) };
      if (!request.query.history) return shown;
      return { ...shown, history: await service.history(job.id) };
    },
  );

  app.get(
    '/v1/jobs/:id/history',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Every transition of a job',
        params: JobIdParams,
        response: { 200: HistoryResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      const [history, outcome] = await Promise.all([
        service.history(request.params.id),
        service.outcomes.outcomeOf(request.params.id),
      ]);
      return { history, ...(outcome ? { outcome: toWireOutcome(outcome) } : {}) };
    },
  );

  app.post(
    '/v1/jobs/:id/cancel',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Cancel a delayed, ready or reserved job',
        description:
          'The answer says whether the job had already gone out: `dispatched` is true when it was reserved (held ' +
          'by a consumer, or being delivered by a sink) as it was cancelled.',
        params: JobIdParams,
        body: CancelRequest,
        response: { 200: CancelResponse, ...errorResponses },
      },
      // The body is optional: `curl -X POST …/cancel` with nothing to say is fine.
      config: { optionalBody: true },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      const { job, dispatched } = await service.cancel(request.params.id, request.body?.reason);
      return { job: toWireJob(job), dispatched, attempts: job.attempts };
    },
  );

  app.post(
    '/v1/jobs/:id/reschedule',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Move a delayed or ready job to a new due time',
        params: JobIdParams,
        body: RescheduleRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      const when: { delayMs?: number | string; runAt?: number | string; timeZone?: string } = {};
      if (request.body.delayMs !== undefined) when.delayMs = request.body.delayMs;
      if (request.body.runAt !== undefined) when.runAt = request.body.runAt;
      if (request.body.timeZone !== undefined) when.timeZone = request.body.timeZone;
      return { job: toWireJob(await service.reschedule(request.params.id, when)) };
    },
  );

  app.post(
    '/v1/jobs/:id/run-now',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Make a delayed job ready at once (recorded in its history as promote, reason "run now")',
        description:
          'For a job waiting for its due time or for a retry: it becomes ready now, its runAt now. Any other state ' +
          'is 409 E_WRONG_STATE naming the state.',
        params: JobIdParams,
        body: RunNowRequest,
        response: { 200: JobResponse, ...errorResponses },
      },
      // The body is optional: `curl -X POST …/run-now` is the whole request.
      config: { optionalBody: true },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      await authorizeJob(request, service, request.params.id);
      return { job: toWireJob(await service.runNow(request.params.id)) };
    },
  );

  app.get(
    '/v1/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: 'List jobs by topic, state, bizKey or tag, in id order, paged by cursor',
        description:
          'Without a topic, a token limited to topics lists the jobs of its topics only (each page its share of the ' +
          'listing, in the same order).',
        querystring: ListQuery,
        response: { 200: ListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, limit = 100, cursor, ...rest } = request.query;
      const { principal } = request;
      if (topic !== undefined) authorizeTopic(request, topic);
      // No topic: a token limited to topics lists its own topics' jobs only.
      const page =
        topic === undefined && isScoped(principal)
          ? await pageOverTopics(
              await topicsInScope(service, principal),
              limit,
              cursor,
              async (t, n, after) => {
                const { jobs, next } = await service.list({ ...rest, topic: t, limit: n, cursor: after });
                return { items: jobs, next };
              },
              BY_ID,
            )
          : await service.list({ ...rest, topic, limit, cursor }).then((p) => ({ items: p.jobs, next: p.next }));
      return { jobs: page.items.map(toWireJob), next: page.next };
    },
  );

  app.post(
    '/v1/purge',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Delete finished, dead, cancelled and expired jobs that ended before `before`',
        body: PurgeRequest,
        response: { 200: CountResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeAllTopics(request);
      return { count: await service.purge(request.body.before, request.body.limit) };
    },
  );
}
