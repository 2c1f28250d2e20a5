import type { ChannelModel, ConfirmChannel } from 'amqplib';
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
import type { RabbitmqSinkConfig } from './sink-config.js';

interface Link {
  connection: ChannelModel;
  channel: ConfirmChannel;
  /** Job ids the broker returned as unroutable (mandatory): their confirm must not count as delivered. */
  returned: Set<string>;
}

/**
 * RabbitMQ (AMQP 0-9-1) through a confirm channel. Each message is persistent, `mandatory` (an
 * unroutable message comes back instead of being dropped silently) and carries the job id as its
 * `messageId`, so consumers can de-duplicate the rare redelivery. A job counts as delivered only when
 * the broker confirmed it and did not return it. The connection is opened lazily and re-opened after a
 * loss on the next delivery, so a broker outage turns into retries, never into lost jobs.
 */
export class RabbitmqSink implements Sink {
  readonly type = 'rabbitmq' as const;
  private readonly config: RabbitmqSinkConfig;
  private link: Promise<Link> | undefined;
  private closed = false;

  constructor(config: RabbitmqSinkConfig) {
    this.config = config;
  }

  async deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.closed) return failed('the sink is closed');
    const routingKey = renderDestination(this.config.routingKey ?? '{topic}', job);
    if (Buffer.byteLength(routingKey) > 255)
      return failed(`routing key longer than 255 bytes: ${routingKey.slice(0, 64)}…`, false);
    let link: Link;
    try {
      link = await raceAbort(this.connect(), signal);
    } catch (err) {
      return failureFrom(err, signal);
    }
    const exchange = this.config.exchange ?? '';
    const confirmed = new Promise<void>((resolve, reject) => {
      link.channel.publish(
        exchange,
        routingKey,
        Buffer.from(job.body, 'utf8'),
        {
          persistent: true,
          mandatory: true,
          messageId: job.id,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
          ...(job.tag === null ? {} : { type: job.tag }),
          headers: { ...this.config.headers, ...jobMetadata(job) },
        },
        (err) => (err ? reject(err instanceof Error ? err : new Error('the broker nacked the message')) : resolve()),
      );
    });
    try {
      await raceAbort(confirmed, signal);
    } catch (err) {
      link.returned.delete(job.id);
      return failureFrom(err, signal);
    }
    if (link.returned.delete(job.id)) {
      return failed(
        `unroutable: exchange "${exchange || '(default)'}" has no queue bound for routing key "${routingKey}"`,
      );
    }
    return delivered();
  }

  private connect(): Promise<Link> {
    if (!this.link) {
      // Only this attempt's own loss may clear `link`: a late close event of an old connection must not
      // drop a newer one.
      const attempt: Promise<Link> = this.open(() => {
        if (this.link === attempt) this.link = undefined;
      });
      this.link = attempt;
      attempt.catch(() => {
        if (this.link === attempt) this.link = undefined;
      });
    }
    return this.link;
  }

  private async open(forget: () => void): Promise<Link> {
    const { default: amqp } = await import('amqplib'); // loaded only when a RabbitMQ sink is used
    const connection = await amqp.connect(this.config.url, {
      timeout: this.config.timeoutMs ?? SINK_DEFAULTS.timeoutMs,
    });
    connection.on('error', forget);
    connection.on('close', forget);
    try {
      const channel = await connection.createConfirmChannel();
      const returned = new Set<string>();
      channel.on('return', (message) => {
        const id = message.properties.messageId as string | undefined;
        if (id) returned.add(id);
      });
      channel.on('error', forget);
      channel.on('close', () => {
        forget();
        connection.close().catch(() => undefined);
      });
      if (this.closed) throw new Error('the sink is closed');
      return { connection, channel, returned };
    } catch (err) {
      await connection.close().catch(() => undefined);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const link = this.link;
    this.link = undefined;
    if (!link) return;
    try {
      const { connection } = await link;
      await connection.close();
    } catch {
      // Already gone: nothing to release.
    }
  }
}
