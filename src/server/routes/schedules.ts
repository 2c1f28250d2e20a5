import Type from 'typebox';
import {
  PutScheduleRequest,
  ScheduleFiresQuery,
  ScheduleFiresResponse,
  ScheduleListResponse,
  ScheduleNameParams,
  ScheduleResponse,
} from '../../protocol/schedule-schemas.js';
import type { ScheduleInput } from '../../schedule/schedule-input.js';
import type { Schedules } from '../../schedule/schedules.js';
import type { DelayqApp } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { errorResponses } from '../route-helpers.js';
import { toWireJob } from '../wire.js';

/**
 * Schedules (docs/schedules.md): periodic pushes by cron or interval. A caller limited to topic prefixes
 * sees and changes only the schedules of its topics.
 */
export function registerScheduleRoutes(app: DelayqApp, schedules: Schedules): void {
  const params = ScheduleNameParams;
  const tags = ['schedules'];

  /** The schedule, after checking the caller may act on its topic. */
  const authorized = async (request: Parameters<typeof authorizeTopic>[0], name: string) => {
    const schedule = await schedules.get(name);
    authorizeTopic(request, schedule.topic);
    return schedule;
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
      schedule: await authorized(request, request.params.name),
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
      const fires = await schedules.fires(request.params.name, { next, last });
      authorizeTopic(request, fires.topic);
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
      const existing = await schedules.store.get(request.params.name);
      if (existing) authorizeTopic(request, existing.topic);
      const { schedule, created } = await schedules.put(request.params.name, request.body as ScheduleInput);
      return reply.code(created ? 201 : 200).send({ schedule });
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
      await authorized(request, request.params.name);
      await schedules.delete(request.params.name);
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
        await authorized(request, request.params.name);
        return { schedule: await schedules.setPaused(request.params.name, paused) };
      },
    );
  }
}
