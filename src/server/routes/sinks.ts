import Type from 'typebox';
import { DelayqError } from '../../core/errors.js';
import { TopicParams } from '../../protocol/schemas.js';
import { SinkConfigSchema } from '../../delivery/sink-config.js';
import { publicBinding, type SinkBindings } from '../../delivery/sink-bindings.js';
import type { DelayqApp } from '../route-context.js';
import { authorizeTopic, mayUseTopic } from '../auth.js';
import { authorizeSinkConfig } from '../sink-binding-policy.js';
import { errorResponses } from '../route-helpers.js';
import type { Clock } from '../../core/clock.js';
import { createSink } from '../../delivery/create-sink.js';
import { SINK_DEFAULTS } from '../../config.js';
import { testDelivery, testJob } from '../../delivery/sink-test.js';

/** A delivery binding as answered: the sink config with secrets masked (so it is described loosely, not re-validated). */
export const DeliveryBindingSchema = Type.Object({
  topic: Type.String(),
  sink: Type.Object(
    { type: Type.String() },
    { additionalProperties: true, description: 'the sink config (see PUT), secrets masked' },
  ),
  updatedAt: Type.Integer({ description: 'epoch ms of the last change' }),
});

const SinkTestRequest = Type.Object(
  { body: Type.Optional(Type.Unknown({ description: 'the JSON value delivered; default {"test":true}' })) },
  { additionalProperties: false },
);

const SinkTestResponse = Type.Object({
  jobId: Type.String({ description: 'the id the target saw: sink-test-<ulid>' }),
  ok: Type.Boolean({ description: 'the target confirmed the delivery (HTTP 2xx, broker confirm)' }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'why it failed; null when ok' }),
  retryable: Type.Union([Type.Boolean(), Type.Null()], {
    description: "whether a job's delivery would be tried again after this failure; null when ok",
  }),
  durationMs: Type.Integer({ description: 'from building the sink to its answer' }),
});

/**
 * Delivery bindings at run time (docs/sinks.md): a topic bound to a sink has its ready jobs delivered there
 * by the dispatcher instead of waiting for `reserve`; deleting the binding makes it a pull topic again.
 * Changes are stored in the binding store, so every instance sharing it follows within its refresh interval.
 * Secrets (webhook HMAC keys, URL passwords) are masked in every answer.
 */
export function registerSinkRoutes(app: DelayqApp, bindings: SinkBindings, clock: Clock): void {
  app.get(
    '/v1/sinks',
    {
      schema: {
        tags: ['sinks'],
        summary: 'Every delivery binding (secrets masked)',
        response: {
          200: Type.Object({
            bindings: Type.Array(DeliveryBindingSchema, { description: 'the delivery bindings, sorted by topic' }),
            // Clients written against earlier versions read the list under its first name: kept for one release.
            routes: Type.Array(DeliveryBindingSchema, {
              deprecated: true,
              description: 'the same list as `bindings`, under its first name; deprecated, removed in the next release',
            }),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const all = await bindings.listBindings();
      const visible = all.filter((b) => mayUseTopic(request.principal, b.topic)).map(publicBinding);
      return { bindings: visible, routes: visible };
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

  app.post(
    '/v1/topics/:topic/sink/test',
    {
      schema: {
        tags: ['sinks'],
        summary: "A test delivery: one synthetic job handed to the topic's sink now, and the sink's answer",
        description:
          'Nothing is stored: the sink of the binding (as configured, with its timeout) delivers a job whose id ' +
          'starts with sink-test- and whose body is `body` (default {"test":true}), and the answer says whether ' +
          'the target confirmed it (ok) or why not (reason, and whether a job would be retried). Audited.',
        params: TopicParams,
        body: SinkTestRequest,
        response: { 200: SinkTestResponse, ...errorResponses },
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const { topic } = request.params;
      authorizeTopic(request, topic);
      const binding = await bindings.getBinding(topic);
      if (!binding) throw new DelayqError('E_NOT_FOUND', `topic ${topic} has no delivery binding (it is a pull topic)`);
      const body = JSON.stringify(request.body.body === undefined ? { test: true } : request.body.body);
      return testDelivery(
        binding.sink,
        testJob(topic, body, clock.now(), binding.sink.timeoutMs ?? SINK_DEFAULTS.timeoutMs),
        createSink,
      );
    },
  );
}
