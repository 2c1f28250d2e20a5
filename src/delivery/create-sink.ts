import { MqttSink } from './mqtt-sink.js';
import { NatsSink } from './nats-sink.js';
import { RabbitmqSink } from './rabbitmq-sink.js';
import { RedisStreamSink } from './redis-stream-sink.js';
import type { Sink } from './sink.js';
import type { SinkConfig } from './sink-config.js';
import { StompSink } from './stomp-sink.js';
import { WebhookSink } from './webhook-sink.js';

/**
 * The one place that maps a validated config to its sink class: runtime.ts hands it to the Dispatcher,
 * and the sink test route (server/routes/sinks.ts) builds its sink with it.
 */
export function createSink(config: SinkConfig): Sink {
  switch (config.type) {
    case 'webhook':
      return new WebhookSink(config);
    case 'rabbitmq':
      return new RabbitmqSink(config);
    case 'nats':
      return new NatsSink(config);
    case 'mqtt':
      return new MqttSink(config);
    case 'stomp':
      return new StompSink(config);
    case 'redis-stream':
      return new RedisStreamSink(config);
  }
}
