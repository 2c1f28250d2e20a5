import Type from 'typebox';
import { DelayqError } from '../../core/errors.js';
import { TopicParams } from '../../protocol/schemas.js';
import { SinkConfigSchema } from '../../delivery/sink-config.js';
import { publicRoute, type SinkRouter } from '../../delivery/sink-router.js';
import type { DelayqApp } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { authorizeSinkConfig } from '../sink-route-policy.js';
import { errorResponses } from '../route-helpers.js';

/** A route as answered: the sink config with secrets masked (so it is described loosely, not re-validated). */
export const SinkRouteSchema = Type.Object({
  topic: Type.String(),
  sink: Type.Object(
    { type: Type.String() },
    { additionalProperties: true, description: 'the sink config (see PUT), secrets masked' },
  ),
  updatedAt: Type.Integer({ description: 'epoch ms of the last change' }),
});

/**
 * Push topics at run time (docs/sinks.md): a topic with a route has its ready jobs delivered to the sink
 * by the dispatcher instead of waiting for `reserve`; deleting the route makes it a pull topic again.
 * Changes are stored in the route store, so every instance sharing it follows within its refresh interval.
 * Secrets (webhook HMAC keys, URL passwords) are masked in every answer.
 */
export function registerSinkRoutes(app: DelayqApp, router: SinkRouter): void {
  app.get(
    '/v1/sinks',
    {
      schema: {
        tags: ['sinks'],
        summary: 'Every push route (secrets masked)',
        response: { 200: Type.Object({ routes: Type.Array(SinkRouteSchema) }), ...errorResponses },
      },
    },
    async (request) => {
      const routes = await router.listRoutes();
      return { routes: routes.filter((r) => mayUseTopic(request.principal, r.topic)).map(publicRoute) };
    },
  );

  app.get(
    '/v1/topics/:topic/sink',
    {
      schema: {
        tags: ['sinks'],
        summary: "A topic's push route",
        params: TopicParams,
        response: { 200: SinkRouteSchema, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      const route = await router.getRoute(request.params.topic);
      if (!route)
        throw new DelayqError('E_NOT_FOUND', `topic ${request.params.topic} has no push route (it is a pull topic)`);
      return publicRoute(route);
    },
  );

  app.put(
    '/v1/topics/:topic/sink',
    {
      schema: {
        tags: ['sinks'],
        summary: 'Route a topic to a sink (webhook, rabbitmq, nats, mqtt, stomp, redis-stream)',
        params: TopicParams,
        body: SinkConfigSchema,
        response: { 200: SinkRouteSchema, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      authorizeSinkConfig(request, request.body);
      return publicRoute(await router.setRoute(request.params.topic, request.body));
    },
  );

  app.delete(
    '/v1/topics/:topic/sink',
    {
      schema: {
        tags: ['sinks'],
        summary: 'Make a push topic a pull topic again',
        params: TopicParams,
        response: { 200: Type.Object({ deleted: Type.Boolean() }), ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      return { deleted: await router.deleteRoute(request.params.topic) };
    },
  );
}
