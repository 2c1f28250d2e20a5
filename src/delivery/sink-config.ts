import Type from 'typebox';
import Value from 'typebox/value';
import { SINK_DEFAULTS } from '../config.js';
import { invalid } from '../core/errors.js';
import { LIMITS } from '../core/limits.js';
import { SINK_TYPES, type SinkType } from './sink.js';
import { SsrfGuard } from './ssrf-guard.js';

/**
 * Where a bound topic's jobs go: one sink config per delivery binding, validated here once. The lead's config loader and
 * the HTTP binding API both accept this shape (docs/sinks.md explains every field). `{topic}`, `{tag}`,
 * `{bizKey}` and `{id}` may appear in every destination template.
 */

const common = {
  /** Label for metrics and logs. @defaultValue the bound topic */
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' })),
  /** Deliveries in flight at once for this binding; a slow target waits on its own slots only. */
  concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, default: SINK_DEFAULTS.concurrency })),
  /** One delivery attempt's limit; past it the attempt counts as failed and is retried. */
  timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000, default: SINK_DEFAULTS.timeoutMs })),
};

const stringMap = Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.String({ maxLength: 4096 }));

export const WebhookSinkConfigSchema = Type.Object(
  {
    type: Type.Literal('webhook'),
    ...common,
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^https?://' }),
    /** HMAC-SHA256 key for the `Delayq-Signature` header. Without it, requests go unsigned. */
    secret: Type.Optional(Type.String({ minLength: 16, maxLength: 512 })),
    /** Extra request headers (e.g. an Authorization for the receiver). */
    headers: Type.Optional(stringMap),
    /**
     * Address ranges the SSRF guard lets through besides public unicast: ipaddr.js range names
     * (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `carrierGradeNat`…) or CIDRs (`10.1.0.0/16`).
     */
    allowedRanges: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64, default: [] }),
    ),
    /** Same-origin 307/308 redirects followed; redirects elsewhere always fail. */
    maxRedirects: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, default: 3 })),
  },
  { additionalProperties: false },
);

export const RabbitmqSinkConfigSchema = Type.Object(
  {
    type: Type.Literal('rabbitmq'),
    ...common,
    url: Type.String({ minLength: 7, maxLength: 2048, pattern: '^amqps?://' }),
    /** '' is the default exchange, where the routing key names the queue. */
    exchange: Type.Optional(Type.String({ maxLength: 255, default: '' })),
    routingKey: Type.Optional(Type.String({ maxLength: 255, default: '{topic}' })),
    headers: Type.Optional(stringMap),
  },
  { additionalProperties: false },
);

export const NatsSinkConfigSchema = Type.Object(
  {
    type: Type.Literal('nats'),
    ...common,
    servers: Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { minItems: 1, maxItems: 16 }),
    /** Must be captured by a JetStream stream; the publish fails (and retries) until one exists. */
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 255, default: '{topic}' })),
    headers: Type.Optional(stringMap),
  },
  { additionalProperties: false },
);

export const MqttSinkConfigSchema = Type.Object(
  {
    type: Type.Literal('mqtt'),
    ...common,
    url: Type.String({ minLength: 7, maxLength: 2048, pattern: '^(mqtts?|wss?|tcp)://' }),
    topic: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, default: '{topic}' })),
    /** 5 carries the metadata as user properties; 4 (3.1.1) sends the body alone. */
    protocolVersion: Type.Optional(Type.Union([Type.Literal(4), Type.Literal(5)], { default: 5 })),
    retain: Type.Optional(Type.Boolean({ default: false })),
    username: Type.Optional(Type.String({ maxLength: 256 })),
    password: Type.Optional(Type.String({ maxLength: 256 })),
  },
  { additionalProperties: false },
);

export const StompSinkConfigSchema = Type.Object(
  {
    type: Type.Literal('stomp'),
    ...common,
    host: Type.String({ minLength: 1, maxLength: 255 }),
    port: Type.Integer({ minimum: 1, maximum: 65_535 }),
    login: Type.Optional(Type.String({ maxLength: 256 })),
    passcode: Type.Optional(Type.String({ maxLength: 256 })),
    /** STOMP `host` header (virtual host). @defaultValue the host */
    virtualHost: Type.Optional(Type.String({ maxLength: 255 })),
    destination: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, default: '/queue/{topic}' })),
    headers: Type.Optional(stringMap),
  },
  { additionalProperties: false },
);

export const RedisStreamSinkConfigSchema = Type.Object(
  {
    type: Type.Literal('redis-stream'),
    ...common,
    url: Type.String({ minLength: 8, maxLength: 2048, pattern: '^rediss?://' }),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, default: '{topic}' })),
    /** Approximate cap on the stream's length (`XADD MAXLEN ~`); none when absent. */
    maxLen: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const SinkConfigSchema = Type.Union([
  WebhookSinkConfigSchema,
  RabbitmqSinkConfigSchema,
  NatsSinkConfigSchema,
  MqttSinkConfigSchema,
  StompSinkConfigSchema,
  RedisStreamSinkConfigSchema,
]);

/** `bindings` in the configuration file: topic → sink config, applied with `SinkBindings.setBinding` at start. */
export const SinkBindingsSchema = Type.Record(Type.String({ pattern: LIMITS.topicPattern }), SinkConfigSchema);

export type WebhookSinkConfig = Type.Static<typeof WebhookSinkConfigSchema>;
export type RabbitmqSinkConfig = Type.Static<typeof RabbitmqSinkConfigSchema>;
export type NatsSinkConfig = Type.Static<typeof NatsSinkConfigSchema>;
export type MqttSinkConfig = Type.Static<typeof MqttSinkConfigSchema>;
export type StompSinkConfig = Type.Static<typeof StompSinkConfigSchema>;
export type RedisStreamSinkConfig = Type.Static<typeof RedisStreamSinkConfigSchema>;
export type SinkConfig = Type.Static<typeof SinkConfigSchema>;

const schemaByType: Record<SinkType, Type.TSchema> = {
  webhook: WebhookSinkConfigSchema,
  rabbitmq: RabbitmqSinkConfigSchema,
  nats: NatsSinkConfigSchema,
  mqtt: MqttSinkConfigSchema,
  stomp: StompSinkConfigSchema,
  'redis-stream': RedisStreamSinkConfigSchema,
};

/**
 * Validates a sink config (from a file, env or an HTTP body) and fills its defaults. Errors are
 * E_VALIDATION naming the field, e.g. `sink.url`. Picks the schema by `type` so the message is about
 * the sink the caller meant, not about every member of the union.
 */
export function parseSinkConfig(input: unknown, field = 'sink'): SinkConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid(field, 'must be an object');
  const type = (input as { type?: unknown }).type;
  if (typeof type !== 'string' || !(SINK_TYPES as readonly string[]).includes(type)) {
    throw invalid(`${field}.type`, `must be one of ${SINK_TYPES.join(', ')}`);
  }
  const schema = schemaByType[type as SinkType];
  const withDefaults = Value.Default(schema, structuredClone(input)) as unknown;
  const first = [...Value.Errors(schema, withDefaults)][0];
  if (first) {
    const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const params = first.params as { additionalProperties?: string[]; requiredProperties?: string[] } | undefined;
    const extra = params?.additionalProperties?.[0] ?? params?.requiredProperties?.[0];
    const at = path || extra || '';
    throw invalid(at ? `${field}.${at}` : field, first.message);
  }
  const config = withDefaults as SinkConfig;
  if (config.type === 'webhook') new SsrfGuard(config.allowedRanges ?? [], `${field}.allowedRanges`); // names a bad range now, not at first delivery
  return config;
}

/** A copy safe to show (API answers, logs): secrets and passwords masked. */
export function redactSinkConfig(config: SinkConfig): SinkConfig {
  const copy = structuredClone(config) as SinkConfig & Record<string, unknown>;
  for (const key of ['secret', 'password', 'passcode']) if (typeof copy[key] === 'string') copy[key] = '***';
  for (const key of ['url']) {
    if (typeof copy[key] === 'string') copy[key] = (copy[key] as string).replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
  return copy;
}
