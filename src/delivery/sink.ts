import type { Job } from '../core/job.js';

/**
 * Delivery: a Sink hands one due job to where the business already listens (an HTTP endpoint or a
 * message broker). The dispatcher finishes the job only when `deliver` answers `ok`; anything else goes
 * through the job's retry policy. A sink never throws from `deliver`: every failure is a value.
 */
export interface Sink {
  /** The sink kind (`webhook`, `rabbitmq`, …), used as a metrics label. */
  readonly type: SinkType;
  /**
   * Delivers one job. Resolves `ok` only once the target confirmed it (HTTP 2xx, broker confirm / ack /
   * receipt). `signal` aborts on the delivery timeout or on shutdown; the sink must then give up promptly.
   */
  deliver(job: Job, signal: AbortSignal): Promise<DeliveryResult>;
  /** Closes connections; resolves after in-flight deliveries settled or were abandoned. Safe to call twice. */
  close(): Promise<void>;
}

export const SINK_TYPES = ['webhook', 'rabbitmq', 'nats', 'mqtt', 'stomp', 'redis-stream'] as const;
export type SinkType = (typeof SINK_TYPES)[number];

export type DeliveryResult =
  | { ok: true }
  | {
      ok: false;
      /** Why, for the job's lastError and the logs. */
      reason: string;
      /**
       * false when trying again cannot help (refused address, invalid destination, 4xx): the job goes
       * straight to the dead letters instead of burning its retries.
       */
      retryable: boolean;
    };

export const delivered = (): DeliveryResult => ({ ok: true });
export const failed = (reason: string, retryable = true): DeliveryResult => ({ ok: false, reason, retryable });

/** Turns whatever a client library threw into a failed result (aborts read as timeouts). */
export function failureFrom(err: unknown, signal: AbortSignal, retryable = true): DeliveryResult {
  if (signal.aborted) {
    const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason ?? 'aborted');
    return failed(`delivery aborted: ${why}`, true);
  }
  const message = err instanceof Error ? err.message || err.name : String(err);
  return failed(message, retryable);
}

/**
 * The metadata every sink carries beside the body, with one set of names (docs/sinks.md). Each sink
 * spells the keys the way its protocol prefers (HTTP headers, AMQP headers, MQTT user properties…).
 */
export function jobMetadata(job: Job): Record<string, string> {
  const meta: Record<string, string> = {
    'delayq-job-id': job.id,
    'delayq-topic': job.topic,
    'delayq-attempt': String(job.attempts),
    'delayq-run-at': String(job.runAt),
    'delayq-created-at': String(job.createdAt),
  };
  if (job.tag !== null) meta['delayq-tag'] = job.tag;
  if (job.bizKey !== null) meta['delayq-biz-key'] = job.bizKey;
  if (job.group !== undefined) meta['delayq-group'] = job.group;
  return meta;
}

/**
 * Fills a destination template: `{topic}`, `{tag}` (empty when the job has none), `{bizKey}`, `{id}`.
 * Unknown placeholders are left as written, so a typo shows up in the destination rather than vanishing.
 */
export function renderDestination(template: string, job: Job): string {
  return template.replace(/\{(topic|tag|bizKey|id)\}/g, (_, name: string) => {
    switch (name) {
      case 'topic':
        return job.topic;
      case 'tag':
        return job.tag ?? '';
      case 'bizKey':
        return job.bizKey ?? '';
      default:
        return job.id;
    }
  });
}

/** Runs `work` unless the signal aborts first; the abort wins the race (the library call is abandoned). */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason ?? new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Observes deliveries (metrics). Kept as an interface so the dispatcher does not import prom-client. */
export interface DeliveryObserver {
  observe(sink: { name: string; type: SinkType }, result: DeliveryResult, durationMs: number): void;
}
