import { Counter, Histogram, Registry } from 'prom-client';
import type { DeliveryObserver, DeliveryResult, SinkType } from './delivery/sink.js';

/**
 * The process's metrics registry. The HTTP server exposes it at /metrics (`registry.metrics()`,
 * content type `registry.contentType`); components register their metrics here, never on prom-client's
 * global registry, so tests and embedded services can each have their own.
 */
export function createMetricsRegistry(): Registry {
  return new Registry();
}

/** The default registry of this process. */
export const metricsRegistry = createMetricsRegistry();

/**
 * delayq_store_resets_total: times this process noticed its store came back empty (a Redis restart without
 * persistence, FLUSHALL, a failover to an empty replica): the jobs it held are gone unless a journal restores them.
 */
export function registerStoreResetCounter(registry: Registry, resets: () => number): void {
  new Counter({
    name: 'delayq_store_resets_total',
    help: 'Times the store was noticed to have come back empty (its jobs lost unless a journal restored them)',
    registers: [registry],
    collect: following(resets),
  });
}

/**
 * delayq_store_write_losses_total: times this process noticed that a failover lost writes the store had
 * acknowledged (a replica promoted without them): the log line names the shard and the time since when.
 */
export function registerStoreWriteLossCounter(registry: Registry, losses: () => number): void {
  new Counter({
    name: 'delayq_store_write_losses_total',
    help: 'Times a failover was noticed to have lost acknowledged writes (jobs lost unless a journal put them back)',
    registers: [registry],
    collect: following(losses),
  });
}

/** A counter's collect that follows a count kept elsewhere (the store's notices), read at each scrape. */
function following(count: () => number): (this: Counter) => void {
  let counted = 0;
  return function (this: Counter) {
    const now = count();
    if (now > counted) this.inc(now - counted);
    counted = now;
  };
}

/**
 * Delivery, per sink (`sink` = the binding's name, the topic by default; `type` = webhook, rabbitmq…):
 *  - delayq_sink_delivered_total: deliveries the target confirmed;
 *  - delayq_sink_failed_total{retryable}: attempts that failed (each goes to retry or the dead letters);
 *  - delayq_sink_delivery_seconds{outcome}: how long each attempt took, confirmed or not.
 */
export class SinkMetrics implements DeliveryObserver {
  private readonly delivered: Counter<'sink' | 'type'>;
  private readonly failed: Counter<'sink' | 'type' | 'retryable'>;
  private readonly latency: Histogram<'sink' | 'type' | 'outcome'>;

  constructor(registry: Registry = metricsRegistry) {
    this.delivered = new Counter({
      name: 'delayq_sink_delivered_total',
      help: 'Jobs delivered to a sink and confirmed by it',
      labelNames: ['sink', 'type'],
      registers: [registry],
    });
    this.failed = new Counter({
      name: 'delayq_sink_failed_total',
      help: 'Delivery attempts that failed (refused, errored or timed out)',
      labelNames: ['sink', 'type', 'retryable'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'delayq_sink_delivery_seconds',
      help: 'Duration of delivery attempts',
      labelNames: ['sink', 'type', 'outcome'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
  }

  observe(sink: { name: string; type: SinkType }, result: DeliveryResult, durationMs: number): void {
    const labels = { sink: sink.name, type: sink.type };
    if (result.ok) this.delivered.inc(labels);
    else this.failed.inc({ ...labels, retryable: String(result.retryable) });
    this.latency.observe({ ...labels, outcome: result.ok ? 'delivered' : 'failed' }, durationMs / 1000);
  }
}
