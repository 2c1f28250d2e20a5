import { Counter, Histogram, type Registry } from 'prom-client';
import type { ServiceEvents, ServiceJobEvent } from '../service/service-events.js';
import { LATENESS_BOUNDS_MS } from '../core/lateness.js';
import type { TopicLabels } from './topic-labels.js';

/** Lateness buckets, seconds: the bounds the store-wide series counts in too (core/lateness.ts). */
const LATENESS_BUCKETS = LATENESS_BOUNDS_MS.map((ms) => ms / 1000);
const WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 20, 30, 60];
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * The series fed by service.events (docs/metrics.md):
 *  - delayq_jobs_total{event,topic}: transitions, named after the verbs;
 *  - delayq_promote_lateness_seconds{topic}: readyAt − runAt of each reserved job;
 *  - delayq_delivery_lateness_seconds{topic}: reservedAt − runAt of each reserved job;
 *  - delayq_reserve_wait_seconds{outcome}: how long long-poll reserves waited (jobs | empty);
 *  - delayq_store_call_seconds{operation,outcome}: every store call (ok | error).
 */
export class JobMetrics {
  private readonly jobs: Counter<'event' | 'topic'>;
  private readonly promoteLateness: Histogram<'topic'>;
  private readonly deliveryLateness: Histogram<'topic'>;
  private readonly reserveWait: Histogram<'outcome'>;
  private readonly storeCalls: Histogram<'operation' | 'outcome'>;
  private readonly topics: TopicLabels;
  /** Series children by topic label and by store call (operation, outcome): bounded like the labels. */
  private readonly byTopic = new Map<string, TopicSeries>();
  private readonly byCall = new Map<string, Observed>();

  constructor(registry: Registry, topics: TopicLabels) {
    this.topics = topics;
    const registers = [registry];
    this.jobs = new Counter({
      name: 'delayq_jobs_total',
      help: 'Job transitions by verb and topic',
      labelNames: ['event', 'topic'],
      registers,
    });
    this.promoteLateness = new Histogram({
      name: 'delayq_promote_lateness_seconds',
      help: 'How long after its due time a job became ready (readyAt - runAt), observed when it is reserved',
      labelNames: ['topic'],
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.deliveryLateness = new Histogram({
      name: 'delayq_delivery_lateness_seconds',
      help: 'How long after its due time a job was reserved by a consumer or a sink (reservedAt - runAt)',
      labelNames: ['topic'],
      buckets: LATENESS_BUCKETS,
      registers,
    });
    this.reserveWait = new Histogram({
      name: 'delayq_reserve_wait_seconds',
      help: 'How long long-poll reserve calls waited before answering',
      labelNames: ['outcome'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.storeCalls = new Histogram({
      name: 'delayq_store_call_seconds',
      help: 'Duration of store calls by operation',
      labelNames: ['operation', 'outcome'],
      buckets: STORE_BUCKETS,
      registers,
    });
  }

  /** Subscribes to the service's events; answers the unsubscribe function. */
  listen(events: ServiceEvents): () => void {
    const onJob = (e: ServiceJobEvent): void => this.onJob(e);
    const onWait = (w: { waitedMs: number; count: number }): void =>
      this.reserveWait.observe({ outcome: w.count > 0 ? 'jobs' : 'empty' }, w.waitedMs / 1000);
    const onCall = (c: { operation: string; durationMs: number; ok: boolean }): void =>
      this.storeCallSeries(c.operation, c.ok).observe(c.durationMs / 1000);
    events.on('job', onJob);
    events.on('reserveWait', onWait);
    events.on('storeCall', onCall);
    return () => {
      events.off('job', onJob);
      events.off('reserveWait', onWait);
      events.off('storeCall', onCall);
    };
  }

  private onJob(e: ServiceJobEvent): void {
    const series = this.topicSeries(this.topics.label(e.topic));
    series.jobs(e.event).inc(e.count ?? 1);
    if (e.event !== 'reserve' || e.dueAt === undefined) return;
    // A job reserved before its due time (reserve took it early) is not late: clamp at 0.
    series.deliveryLateness.observe(Math.max(0, e.at - e.dueAt) / 1000);
    if (e.readyAt != null) series.promoteLateness.observe(Math.max(0, e.readyAt - e.dueAt) / 1000);
  }

  private topicSeries(topic: string): TopicSeries {
    let series = this.byTopic.get(topic);
    if (!series) {
      const byEvent = new Map<string, Counted>();
      series = {
        jobs: (event) => {
          let child = byEvent.get(event);
          if (!child) byEvent.set(event, (child = this.jobs.labels(event, topic)));
          return child;
        },
        deliveryLateness: this.deliveryLateness.labels(topic),
        promoteLateness: this.promoteLateness.labels(topic),
      };
      this.byTopic.set(topic, series);
    }
    return series;
  }

  private storeCallSeries(operation: string, ok: boolean): Observed {
    const key = ok ? operation : `${operation} error`;
    let child = this.byCall.get(key);
    if (!child) this.byCall.set(key, (child = this.storeCalls.labels(operation, ok ? 'ok' : 'error')));
    return child;
  }
}

interface Counted {
  inc(value?: number): void;
}
interface Observed {
  observe(value: number): void;
}
/** One topic label's series, bound once (labels are looked up by name only when a series is first used). */
interface TopicSeries {
  jobs(event: string): Counted;
  deliveryLateness: Observed;
  promoteLateness: Observed;
}
