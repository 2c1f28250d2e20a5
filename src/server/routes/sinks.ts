import Type from 'typebox';
import { DelayqError } from '../../core/errors.js';
import { TopicParams } from '../../protocol/schemas.js';
import { SinkConfigSchema } from '../../delivery/sink-config.js';
import { publicBinding, type SinkBindings } from '../../delivery/sink-bindings.js';
import type { DelayqApp } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { authorizeSinkConfig } from '../sink-route-policy.js';
import { errorResponses } from '../route-helpers.js';

/** A delivery binding as answered: the sink config with secrets masked (so it is described loosely, not re-validated). */
export const DeliveryBindingSchema = Type.Object({
  topic: Type.String(),
  sink: Type.Object(
    { type: Type.String() },
    { additionalProperties: true, description: 'the sink config (see PUT), secrets masked' },
  ),
  updatedAt: Type.Integer({ description: 'epoch ms of the last change' }),
});

/**
 * Delivery bindings at run time (docs/sinks.md): a topic bound to a sink has its ready jobs delivered there
 * by the dispatcher instead of waiting for `reserve`; deleting the binding makes it a pull topic again.
 * Changes are stored in the binding store, so every instance sharing it follows within its refresh interval.
 * Secrets (webhook HMAC keys, URL passwords) are masked in every answer.
 */
export function registerSinkRoutes(app: DelayqApp, bindings: SinkBindings): void {
  app.get(
    '/v1/sinks',
    {
      schema: {
        tags: ['sinks'],
        summary: 'Every delivery binding (secrets masked)',
        response: {
          200: Type.Object({
            // The field keeps its first name: clients written against earlier versions read `routes`.
            routes: Type.Array(DeliveryBindingSchema, { description: 'the delivery bindings, sorted by topic' }),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const all = await bindings.listBindings();
      return { routes: all.filter((r) => mayUseTopic(request.principal, r.topic)).map(publicBinding) };
    },
  );

  app.get(
    '/v1/topics/:topic/sink',
    {
      schema: {
        tags: ['sinks'],
        summary: "A topic's delivery binding",
        params: TopicParams,
        response: { 200: DeliveryBindingSchema, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      const binding = await bindings.getBinding(request.params.topic);
      if (!binding)
        throw new DelayqError(
          'E_NOT_FOUND',
          `topic ${request.params.topic} has no delivery binding (it is a pull topic)`,
        );
      return publicBinding(binding);
    },
  );

  app.put(
    '/v1/topics/:topic/sink',
    {
      schema: {
        tags: ['sinks'],
        summary: 'Bind a topic to a sink for delivery (webhook, rabbitmq, nats, mqtt, stomp, redis-stream)',
        params: TopicParams,
        body: SinkConfigSchema,
        response: { 200: DeliveryBindingSchema, ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      authorizeSinkConfig(request, request.body);
      return publicBinding(await bindings.setBinding(request.params.topic, request.body));
    },
  );

  app.delete(
    '/v1/topics/:topic/sink',
    {
      schema: {
        tags: ['sinks'],
        summary: "Delete a topic's delivery binding: it becomes a pull topic again",
        params: TopicParams,
        response: { 200: Type.Object({ deleted: Type.Boolean() }), ...errorResponses },
      },
    },
    async (request) => {
      authorizeTopic(request, request.params.topic);
      return { deleted: await bindings.deleteBinding(request.params.topic) };
    },
  );
}
