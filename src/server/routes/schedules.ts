import Type from 'typebox';
import {
  PutScheduleRequest,
  ScheduleFiresQuery,
  ScheduleFiresResponse,
  ScheduleListResponse,
  ScheduleNameParams,
  SchedulePreviewQuery,
  SchedulePreviewResponse,
  ScheduleResponse,
} from '../../protocol/schedule-schemas.js';
import type { ScheduleInput } from '../../schedules/schedule-input.js';
import type { Schedules } from '../../schedules/schedules.js';
import type { DelayqApp } from '../route-context.js';
import type { FastifyRequest } from 'fastify';
import type { ScheduleGuard } from '../../store/schedule-store.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import { toWireJob } from '../wire.js';

/**
 * Schedules (docs/schedules.md): periodic pushes by cron or interval. A caller limited to topic prefixes
 * sees and changes only the schedules of its topics; the others are as if they did not exist.
 */
export function registerScheduleRoutes(app: DelayqApp, schedules: Schedules): void {
  const params = ScheduleNameParams;
  const tags = ['schedules'];

  /**
   * A caller limited to topics sees and changes only schedules of its topics: another's is answered as a name
   * no schedule has (404), and taking its name is a conflict (409), so neither says what it is.
   */
  const guardOf = (request: Pick<FastifyRequest, 'principal'>): ScheduleGuard | undefined => {
    const { principal } = request;
    return principal && principal.topicPrefixes !== null ? (s) => mayUseTopic(principal, s.topic) : undefined;
  };

  app.get(
    '/v1/schedules',
    {
      schema: { tags, summary: 'Every schedule, by name', response: { 200: ScheduleListResponse, ...errorResponses } },
    },
    async (request) => ({
      schedules: (await schedules.list()).filter((s) => mayUseTopic(request.principal, s.topic)),
    }),
  );

  app.get(
    '/v1/schedules/:name',
    {
      schema: {
        tags,
        summary: 'A schedule, its next fire and its latest job',
        params,
        response: { 200: ScheduleResponse, ...errorResponses },
      },
    },
    async (request) => ({
      schedule: await schedules.get(request.params.name, guardOf(request)),
    }),
  );

  app.get(
    '/v1/schedules/:name/fires',
    {
      schema: {
        tags,
        summary: 'Its coming ticks and its latest fires with their jobs',
        params,
        querystring: ScheduleFiresQuery,
        response: { 200: ScheduleFiresResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { next = 5, last = 5 } = request.query;
      const fires = await schedules.fires(request.params.name, { next, last }, guardOf(request));
      return { next: fires.next, last: fires.last.map((f) => ({ ...f, job: toWireJob(f.job) })) };
    },
  );

  app.put(
    '/v1/schedules/:name',
    {
      schema: {
        tags,
        summary: 'Create or replace a schedule (applies from its first tick not yet pushed)',
        params,
        body: PutScheduleRequest,
        response: { 200: ScheduleResponse, 201: ScheduleResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      authorizeTopic(request, request.body.topic);
      const { schedule, created } = await schedules.put(
        request.params.name,
        request.body as ScheduleInput,
        guardOf(request),
      );
      return reply.code(created ? 201 : 200).send({ schedule });
    },
  );

  app.post(
    '/v1/schedules/:name/preview',
    {
      schema: {
        tags,
        summary: 'The coming ticks a definition would fire, checked as PUT checks it, without storing it',
        description:
          "Takes PUT's body; answers the next ticks (a new schedule's from now, a replacement's from its first tick " +
          'not yet pushed) as if it were active, in its time zone. For an editor to show before saving.',
        params,
        querystring: SchedulePreviewQuery,
        body: PutScheduleRequest,
        response: { 200: SchedulePreviewResponse, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.body.topic);
      const { name } = request.params;
      return schedules.preview(name, request.body as ScheduleInput, request.query.next ?? 10, guardOf(request));
    },
  );

  app.delete(
    '/v1/schedules/:name',
    {
      schema: {
        tags,
        summary: 'Delete a schedule (jobs already pushed stay)',
        params,
        response: { 200: Type.Object({ deleted: Type.Boolean() }), ...errorResponses },
      },
    },
    async (request) => {
      await schedules.delete(request.params.name, guardOf(request));
      return { deleted: true };
    },
  );

  for (const [action, paused] of [
    ['pause', true],
    ['resume', false],
  ] as const) {
    app.post(
      `/v1/schedules/:name/${action}`,
      {
        schema: {
          tags,
          summary: paused
            ? 'Pause a schedule (no fires until resumed)'
            : 'Resume a schedule (ticks while paused are not fired)',
          params,
          response: { 200: ScheduleResponse, ...errorResponses },
        },
      },
      async (request) => {
        return { schedule: await schedules.setPaused(request.params.name, paused, guardOf(request)) };
      },
    );
  }
}
