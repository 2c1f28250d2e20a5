/** Producers and operators: push (one, batch), get, history, cancel, reschedule, list, purge. */
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
} from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';
import { authorizeAllTopics, authorizeTopic } from '../auth.js';
import { authorizeJob, errorResponses } from '../route-helpers.js';
import { toWireJob, toWireOutcome } from '../wire.js';
import { pushAnswerJson, sendJsonText, pushBatchAnswerJson } from '../job-json.js';

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
      const result = service.jobApi.retains(request.body)
        ? (await service.jobApi.pushBatch([request.body]))[0]!
        : await service.push(request.body);
      return sendJsonText(reply, result.created ? 201 : 200, pushAnswerJson(result.created, result.job));
    },
  );

  app.post(
    '/v1/jobs/batch',
    {
      schema: {
        tags: ['jobs'],
        summary: 'Push up to 1000 jobs at once (all validated before any is stored)',
        body: PushBatchRequest,
        response: { 200: PushBatchResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      request.body.jobs.forEach((job, i) => authorizeTopic(request, job.topic, `jobs[${i}].topic`));
      const results = await service.jobApi.pushBatch(request.body.jobs);
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
      const job = await service.get(request.params.id);
      authorizeTopic(request, job.topic);
      const outcome = await service.jobApi.outcomeOf(job.id);
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
        service.jobApi.outcomeOf(request.params.id),
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

  app.get(
    '/v1/jobs',
    {
      schema: {
        tags: ['jobs'],
        summary: 'List jobs by topic, state, bizKey or tag, in id order, paged by cursor',
        querystring: ListQuery,
        response: { 200: ListResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { topic, limit, ...rest } = request.query;
      if (topic === undefined) authorizeAllTopics(request);
      else authorizeTopic(request, topic);
      const page = await service.list({ ...rest, topic, limit: limit ?? 100 });
      return { jobs: page.jobs.map(toWireJob), next: page.next };
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
