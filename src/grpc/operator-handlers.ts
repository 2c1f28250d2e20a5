/**
 * The operators' unary calls of the Delayq gRPC service: list, dead letters, redrive, topic pause and stats,
 * purge, restore of one job. Each is the HTTP route of the same name (routes/jobs.ts, routes/dead.ts,
 * routes/topic-pauses.ts, routes/topics.ts, routes/journal.ts) over the same DelayqService: same schemas,
 * same topic scopes, same catalogue errors.
 */
import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { Type } from 'typebox';
import { DelayqError } from '../core/errors.js';
import type { Job, JobState } from '../core/job.js';
import { ListQuery, PauseTopicRequest, PurgeRequest, RedriveRequest, Topic } from '../protocol/schemas.js';
import { authorizeAllTopics, authorizeTopic } from '../server/auth.js';
import { visibleIds } from '../server/route-helpers.js';
import { BY_ID, isScoped, pageOverTopics, topicsInScope } from '../server/scoped-listing.js';
import { DeadQuery } from '../protocol/dead-schemas.js';
import { jobMessageOf, topicStatsMessageOf, validate } from './convert.js';
import { bodyOf, jobIdOf, unary, type HandlerContext } from './unary-handlers.js';

const TopicOnly = Type.Object({ topic: Topic }, { additionalProperties: false });
const RestoreJobBody = Type.Object({ expire: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** Default page size of List and ListDead, as over HTTP. */
const PAGE = 100;
/** Default dead jobs a Redrive by topic takes, as over HTTP. */
const REDRIVE_LIMIT = 1000;

const pageOf = (page: { jobs: Job[]; next: string | null }) => ({
  jobs: page.jobs.map(jobMessageOf),
  ...(page.next === null ? {} : { next: page.next }),
});

export function operatorHandlers(context: HandlerContext): UntypedServiceImplementation {
  const { service } = context;
  return {
    List: unary(context, 'List', async (request: Record<string, unknown>, caller) => {
      const query = validate<ListQuery>(
        ListQuery,
        bodyOf(request, ['topic', 'state', 'bizKey', 'tag', 'limit', 'cursor']),
      );
      if (query.topic !== undefined) authorizeTopic(caller, query.topic);
      const { limit = PAGE, state, cursor, topic, ...rest } = query;
      const { principal } = caller;
      const read = async (t: string | undefined, n: number, after: string | undefined) => {
        const { jobs, next } = await service.list({
          ...rest,
          topic: t,
          state: state as JobState | undefined,
          limit: n,
          cursor: after,
        });
        return { items: jobs, next };
      };
      // No topic: a token limited to topics lists its own topics' jobs only (as GET /v1/jobs).
      const page =
        topic === undefined && isScoped(principal)
          ? await pageOverTopics(await topicsInScope(service, principal), limit, cursor, read, BY_ID)
          : await read(topic, limit, cursor);
      return pageOf({ jobs: page.items, next: page.next });
    }),

    ListDead: unary(context, 'ListDead', async (request: Record<string, unknown>, caller) => {
      const query = validate<{ topic: string; limit?: number; cursor?: string }>(DeadQuery, {
        topic: '',
        ...bodyOf(request, ['topic', 'limit', 'cursor']),
      });
      authorizeTopic(caller, query.topic);
      return pageOf(
        await service.list({ topic: query.topic, state: 'dead', limit: query.limit ?? PAGE, cursor: query.cursor }),
      );
    }),

    Redrive: unary(context, 'Redrive', async (request: { topic?: string; limit?: number; ids: string[] }, caller) => {
      // Either form, as the HTTP body: ids only when given (repeated fields always arrive, maybe empty).
      const body = validate<RedriveRequest>(
        RedriveRequest,
        request.ids.length > 0 || request.topic === undefined
          ? { ids: request.ids, ...bodyOf(request, ['topic', 'limit']) }
          : bodyOf(request, ['topic', 'limit']),
      );
      if ('topic' in body) {
        authorizeTopic(caller, body.topic);
        return { count: await service.redrive({ topic: body.topic, limit: body.limit ?? REDRIVE_LIMIT }) };
      }
      const ids = await visibleIds(caller, service, body.ids);
      return { count: ids.length ? await service.redrive({ ids }) : 0 };
    }),

    PauseTopic: unary(context, 'PauseTopic', async (request: Record<string, unknown>, caller) => {
      const { topic } = validate<{ topic: string }>(TopicOnly, { topic: request['topic'] ?? '' });
      const body = validate<{ delayMs?: number }>(PauseTopicRequest, bodyOf(request, ['delayMs']));
      authorizeTopic(caller, topic);
      const pause = await service.topics.pause(topic, { delayMs: body.delayMs });
      return { topic, paused: pause.paused, ...(pause.pausedUntil === null ? {} : { pausedUntil: pause.pausedUntil }) };
    }),

    ResumeTopic: unary(context, 'ResumeTopic', async (request: Record<string, unknown>, caller) => {
      const { topic } = validate<{ topic: string }>(TopicOnly, { topic: request['topic'] ?? '' });
      authorizeTopic(caller, topic);
      await service.topics.resume(topic);
      return { topic, paused: false };
    }),

    GetTopicStats: unary(context, 'GetTopicStats', async (request: Record<string, unknown>, caller) => {
      const { topic } = validate<{ topic: string }>(TopicOnly, { topic: request['topic'] ?? '' });
      authorizeTopic(caller, topic);
      const stats = (await service.topics.stats()).find((t) => t.topic === topic);
      if (!stats) throw new DelayqError('E_NOT_FOUND', `topic ${topic} has no jobs`);
      return topicStatsMessageOf(stats);
    }),

    Purge: unary(context, 'Purge', async (request: Record<string, unknown>, caller) => {
      authorizeAllTopics(caller);
      const body = validate<{ before: number; limit?: number }>(PurgeRequest, bodyOf(request, ['before', 'limit']));
      return { count: await service.purge(body.before, body.limit) };
    }),

    RestoreJob: unary(context, 'RestoreJob', async (request: Record<string, unknown>, caller) => {
      authorizeAllTopics(caller);
      const id = jobIdOf(request);
      const body = validate<{ expire?: boolean }>(RestoreJobBody, bodyOf(request, ['expire']));
      return service.journal.restoreJob(id, { expire: body.expire ?? true });
    }),
  };
}
