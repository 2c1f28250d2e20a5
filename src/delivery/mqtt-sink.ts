import type { MqttClient } from 'mqtt';
import { SINK_DEFAULTS } from '../config.js';
import type { Job } from '../core/job.js';
import {
  delivered,
  failed,
  failureFrom,
  jobMetadata,
  raceAbort,
  renderDestination,
  type DeliveryResult,
  type Sink,
} from './sink.js';
import type { MqttSinkConfig } from './sink-config.js';

/**
 * MQTT at QoS 1: the broker's PUBACK is the confirmation. With MQTT 5 the job's metadata rides along as
 * user properties and the content type is set; MQTT 3.1.1 carries the body alone. The client reconnects
 * in the background; a delivery made while it is offline waits for the connection (within its timeout)
 * rather than sitting in the client's offline queue, so an abandoned attempt is not sent later behind
 * the dispatcher's back.
 */
export class MqttSink implements Sink {
  readonly type = 'mqtt' as const;
  private readonly config: MqttSinkConfig;
  private client: Promise<MqttClient> | undefined;
  private closed = false;

  constructor(config: MqttSinkConfig) {
    this.config = config;
  }

  async deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.closed) return failed('the sink is closed');
    const topic = renderDestination(this.config.topic ?? '{topic}', job);
    if (topic.length === 0 || topic.includes('+') || topic.includes('#') || topic.includes('\0'))
      return failed(`invalid MQTT topic "${topic}"`, false);
    try {
      const client = await raceAbort(this.ensureClient(), signal);
      if (!client.connected) await onceConnected(client, signal);
      const v5 = (this.config.protocolVersion ?? 5) === 5;
      await raceAbort(
        client.publishAsync(topic, job.body, {
          qos: 1,
          retain: this.config.retain ?? false,
          ...(v5 ? { properties: { contentType: 'application/json', userProperties: jobMetadata(job) } } : {}),
        }),
        signal,
      );
      return delivered();
    } catch (err) {
      return failureFrom(err, signal);
    }
  }

  private ensureClient(): Promise<MqttClient> {
    this.client ??= this.createClient();
    return this.client;
  }

  private async createClient(): Promise<MqttClient> {
    const { default: mqtt } = await import('mqtt'); // loaded only when an MQTT sink is used
    const client = mqtt.connect(this.config.url, {
      protocolVersion: this.config.protocolVersion ?? 5,
      clientId: `delayq-${Math.random().toString(36).slice(2, 12)}`,
      clean: true,
      reconnectPeriod: 250,
      connectTimeout: Math.min(this.config.timeoutMs ?? SINK_DEFAULTS.timeoutMs, 5_000),
      // Publishes are only made while connected; nothing is parked in an offline queue.
      queueQoSZero: false,
      ...(this.config.username === undefined ? {} : { username: this.config.username }),
      ...(this.config.password === undefined ? {} : { password: this.config.password }),
    });
    client.on('error', () => undefined); // surfaced per delivery as a timeout or publish error
    if (this.closed) await client.endAsync(true).catch(() => undefined);
    return client;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    const connected = await client?.catch(() => undefined);
    await connected?.endAsync(true).catch(() => undefined);
  }
}

/** Waits for the (re)connection, giving up with the signal and leaving no listener behind. */
function onceConnected(client: MqttClient, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
    const onConnect = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = (): void => {
      client.removeListener('connect', onConnect);
      reject(signal.reason ?? new Error('aborted'));
    };
    client.once('connect', onConnect);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
