import type { JetStreamClient } from '@nats-io/jetstream';
import type { MsgHdrs, NatsConnection } from '@nats-io/transport-node';
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
import type { NatsSinkConfig } from './sink-config.js';

/** NATS subjects: dot-separated tokens of printable characters without spaces or wildcards. */
const SUBJECT_RE = /^[^\s*>.]+(\.[^\s*>.]+)*$/;

/**
 * NATS JetStream. Publishes to the subject rendered from the template and waits for the stream's
 * PubAck, so a job is finished only once the server stored it. The job id travels as `Nats-Msg-Id`
 * (`msgID`): a redelivery within the stream's duplicate window is dropped by the server, which makes
 * the at-least-once hand-over effectively once. The stream itself is the operator's (it decides
 * retention and replicas); until one captures the subject, publishes fail and the job retries.
 */
interface NatsLink {
  nc: NatsConnection;
  js: JetStreamClient;
  newHeaders: () => MsgHdrs;
}

export class NatsSink implements Sink {
  readonly type = 'nats' as const;
  private readonly config: NatsSinkConfig;
  private link: Promise<NatsLink> | undefined;
  private closed = false;

  constructor(config: NatsSinkConfig) {
    this.config = config;
  }

  async deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult> {
    if (this.closed) return failed('the sink is closed');
    const subject = renderDestination(this.config.subject ?? '{topic}', job);
    if (!SUBJECT_RE.test(subject)) return failed(`invalid NATS subject "${subject}"`, false);
    try {
      const { js, newHeaders } = await raceAbort(this.connect(), signal);
      const hdrs = newHeaders();
      for (const [key, value] of Object.entries({ ...this.config.headers, ...jobMetadata(job) })) hdrs.set(key, value);
      await raceAbort(
        js.publish(subject, job.body, {
          msgID: job.id,
          headers: hdrs,
          timeout: this.config.timeoutMs ?? SINK_DEFAULTS.timeoutMs,
        }),
        signal,
      );
      return delivered();
    } catch (err) {
      return failureFrom(err, signal);
    }
  }

  private connect(): Promise<NatsLink> {
    if (!this.link) {
      const attempt = (async () => {
        // The NATS client is loaded only when a NATS sink is used.
        const [{ connect, headers }, { jetstream }] = await Promise.all([
          import('@nats-io/transport-node'),
          import('@nats-io/jetstream'),
        ]);
        const nc = await connect({
          servers: this.config.servers,
          timeout: Math.min(this.config.timeoutMs ?? SINK_DEFAULTS.timeoutMs, 5_000),
          // Keep reconnecting in the background; publishes made while disconnected time out and retry.
          maxReconnectAttempts: -1,
          reconnectTimeWait: 250,
          name: 'delayq-nats-sink',
        });
        void nc.closed().then(() => {
          if (this.link === attempt) this.link = undefined;
        });
        if (this.closed) {
          await nc.close();
          throw new Error('the sink is closed');
        }
        return { nc, js: jetstream(nc), newHeaders: headers };
      })();
      this.link = attempt;
      attempt.catch(() => {
        if (this.link === attempt) this.link = undefined;
      });
    }
    return this.link;
  }

  async close(): Promise<void> {
    this.closed = true;
    const link = this.link;
    this.link = undefined;
    if (!link) return;
    try {
      const { nc } = await link;
      await nc.drain();
    } catch {
      // Already closed.
    }
  }
}
