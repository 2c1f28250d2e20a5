/**
 * The Youzan delay-queue protocol of seed 003 at `POST /youzan`: one JSON command per request
 * (`add`, `pop`, `finish`, `delete`), delay and TTR in seconds, answered with `{success, error, id, value}`
 * and HTTP 200 (docs/compat.md).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { invalid } from '../../core/errors.js';
import type { RouteContext } from '../route-context.js';
import { authorizeTopic } from '../auth.js';
import { deleteById, finishById, seedBody, type CompatReservations } from '../compat-reservations.js';
import { compatStatus } from '../compat-status.js';
import { toDelayqError } from '../error-handler.js';
import { authorizeJob } from '../route-helpers.js';
import { reserveForRequest } from '../reserve-for-request.js';

export const YOUZAN_PATH = '/youzan';

const Seconds = Type.Number({ minimum: 0 });
/** Fields of seed 003; unknown fields are ignored. */
const YouzanCommand = Type.Object({
  command: Type.Union([Type.Literal('add'), Type.Literal('pop'), Type.Literal('finish'), Type.Literal('delete')]),
  topic: Type.Optional(Type.String()),
  id: Type.Optional(Type.String()),
  delay: Type.Optional(Type.Union([Seconds, Type.String()], { description: 'seconds' })),
  TTR: Type.Optional(Type.Union([Seconds, Type.String()], { description: 'seconds' })),
  body: Type.Optional(Type.Unknown()),
});
const YouzanResponse = Type.Object({
  success: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
  id: Type.Union([Type.String(), Type.Null()]),
  value: Type.Union([Type.String(), Type.Null()]),
  // delete only, when it cancelled the job: whether it had already gone out (was reserved), and how often.
  dispatched: Type.Optional(
    Type.Boolean({ description: 'delete: true when the job was reserved (out) as it was cancelled' }),
  ),
  attempts: Type.Optional(Type.Integer({ description: 'delete: how many times the cancelled job was handed out' })),
});

export interface YouzanOptions extends RouteContext {
  compat: CompatReservations;
}

function seconds(value: number | string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n < 0 || (typeof value === 'string' && value.trim() === ''))
    throw invalid(field, 'must be a number of seconds ≥ 0');
  return Math.round(n * 1000);
}

function required(value: string | undefined, field: string): string {
  if (value === undefined || value === '') throw invalid(field, 'is required for this command');
  return value;
}

export const youzanRoutes: FastifyPluginAsyncTypebox<YouzanOptions> = async (app, { service, compat }) => {
  app.setErrorHandler((err, request, reply) => {
    const error = toDelayqError(err);
    const body = request.body as { id?: unknown } | undefined;
    const id = typeof body?.id === 'string' ? body.id : null;
    return reply
      .status(compatStatus(error))
      .send({ success: false, error: `${error.code}: ${error.message}`, id, value: null });
  });

  app.post(
    YOUZAN_PATH,
    {
      schema: {
        tags: ['compat'],
        summary: 'Youzan delay queue: {command: add | pop | finish | delete, …}',
        body: YouzanCommand,
        response: { 200: YouzanResponse },
      },
    },
    async (request, reply) => {
      const cmd = request.body;
      switch (cmd.command) {
        case 'add': {
          const topic = required(cmd.topic, 'topic');
          authorizeTopic(request, topic);
          const delayMs = seconds(cmd.delay, 'delay');
          const ttrMs = seconds(cmd.TTR, 'TTR');
          const { job } = await service.push({
            id: cmd.id,
            topic,
            body: cmd.body,
            ...(delayMs === undefined ? {} : { delayMs }),
            ...(ttrMs === undefined ? {} : { ttrMs }),
          });
          return { success: true, error: null, id: job.id, value: null };
        }
        case 'pop': {
          const topic = required(cmd.topic, 'topic');
          authorizeTopic(request, topic);
          const [reservation] = await reserveForRequest(service, request, reply, { topics: [topic], count: 1 });
          if (!reservation) return { success: true, error: null, id: null, value: null };
          compat.remember(reservation.job.id, reservation.token, reservation.deadlineAt);
          return { success: true, error: null, id: reservation.job.id, value: seedBody(reservation.job) };
        }
        case 'finish': {
          const id = required(cmd.id, 'id');
          await authorizeJob(request, service, id);
          await finishById(service, compat, id);
          return { success: true, error: null, id, value: null };
        }
        case 'delete': {
          const id = required(cmd.id, 'id');
          await authorizeJob(request, service, id);
          const cancelled = await deleteById(service, compat, id);
          const out = cancelled ? { dispatched: cancelled.dispatched, attempts: cancelled.job.attempts } : {};
          return { success: true, error: null, id, value: null, ...out };
        }
      }
    },
  );
};
