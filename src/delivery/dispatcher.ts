import { pino, type Logger } from 'pino';
import { SINK_DEFAULTS } from '../config.js';
import { isDelayqError } from '../core/errors.js';
import type { Reservation } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import type { Consumer } from './consumer.js';
import type { DeliveryBinding } from './sink-bindings.js';
import { failed, type DeliveryObserver, type DeliveryResult, type Sink } from './sink.js';
import type { SinkConfig } from './sink-config.js';

/** Where bindings come from (the SinkBindings): the current table and its changes. */
export interface BindingSource {
  bindings(): DeliveryBinding[];
  subscribe(listener: (topic: string, binding: DeliveryBinding | null) => void): () => void;
}

export interface DispatcherOptions {
  service: Consumer;
  bindings: BindingSource;
  /** Builds the sink of a binding (runtime.ts passes `createSink`). */
  createSink: (config: SinkConfig) => Sink;
  observer?: DeliveryObserver;
  logger?: Logger;
  /** Long-poll length of each reserve; a binding change or stop cuts it short. @defaultValue 10 000 ms */
  pollWaitMs?: number;
  /** Reservation TTR beyond the delivery timeout, so a crashed process's jobs lapse and retry. @defaultValue 5000 ms */
  ttrMarginMs?: number;
  /** The time a pump started, as status() reports it. @defaultValue Date.now */
  now?: () => number;
}

/**
 * Delivery: for every bound topic, a pump reserves ready jobs through the service (exactly as a
 * pull consumer would, long-polling so it never spins) and hands each to the binding's sink. A job is
 * finished only when the sink confirmed it; a failure or timeout goes to `fail`, which applies the job's
 * retry policy and backoff and buries it when attempts run out. A pump holds at most `concurrency`
 * deliveries, so a slow target fills only its own slots. The reservation's TTR outlives the delivery
 * timeout: if this process dies mid-delivery, the reaper retries the job (at-least-once, never lost).
 */
export class Dispatcher {
  private readonly options: DispatcherOptions;
  private readonly logger: Logger;
  private readonly pumps = new Map<string, TopicPump>();
  private readonly retiring = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private running = false;

  constructor(options: DispatcherOptions) {
    this.options = options;
    this.logger = options.logger ?? pino({ level: 'silent' });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = this.options.bindings.subscribe((topic, binding) => this.onBinding(topic, binding));
    for (const binding of this.options.bindings.bindings()) this.onBinding(binding.topic, binding);
  }

  /** Topics being pumped, since when, and their deliveries in flight. */
  status(): { topic: string; sink: string; type: string; inFlight: number; since: number }[] {
    return [...this.pumps.values()].map((p) => ({
      topic: p.topic,
      sink: p.name,
      type: p.sink.type,
      inFlight: p.inFlight,
      since: p.since,
    }));
  }

  /**
   * Graceful stop: no new reservations; deliveries in flight run to their end (bounded by their timeout)
   * and are finished or failed; then the sinks close. Call before closing the service.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    const pumps = [...this.pumps.values()];
    this.pumps.clear();
    await Promise.all([...pumps.map((p) => p.stop()), ...this.retiring]);
  }

  private onBinding(topic: string, binding: DeliveryBinding | null): void {
    if (!this.running) return;
    const old = this.pumps.get(topic);
    // The same config again (re-applied from the config file, say): keep the pump and its connections.
    if (old && binding && JSON.stringify(old.config) === JSON.stringify(binding.sink)) return;
    if (old) {
      this.pumps.delete(topic);
      // The old pump drains in the background while the new one starts: deliveries already handed to
      // the old sink finish there, new reservations go to the new sink.
      const done = old.stop().finally(() => this.retiring.delete(done));
      this.retiring.add(done);
    }
    if (!binding) return;
    let sink: Sink;
    try {
      sink = this.options.createSink(binding.sink);
    } catch (err) {
      this.logger.error(
        { err, topic },
        'cannot build the sink of this binding; its jobs wait until the binding is fixed',
      );
      return;
    }
    const pump = new TopicPump(binding, sink, this.options, this.logger);
    this.pumps.set(topic, pump);
    pump.start();
  }
}

/** One bound topic: reserve → deliver → finish/fail, with at most `concurrency` deliveries at once. */
class TopicPump {
  readonly topic: string;
  readonly since: number;
  readonly name: string;
  readonly sink: Sink;
  readonly config: SinkConfig;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly ttrMs: number;
  private readonly service: Consumer;
  private readonly observer: DeliveryObserver | undefined;
  private readonly pollWaitMs: number;
  private readonly logger: Logger;
  private readonly deliveries = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(binding: DeliveryBinding, sink: Sink, options: DispatcherOptions, logger: Logger) {
    this.topic = binding.topic;
    this.since = (options.now ?? Date.now)();
    this.name = binding.sink.name ?? binding.topic;
    this.sink = sink;
    this.config = binding.sink;
    this.concurrency = binding.sink.concurrency ?? SINK_DEFAULTS.concurrency;
    this.timeoutMs = binding.sink.timeoutMs ?? SINK_DEFAULTS.timeoutMs;
    this.ttrMs = Math.min(LIMITS.ttrMaxMs, Math.max(LIMITS.ttrMinMs, this.timeoutMs + (options.ttrMarginMs ?? 5000)));
    this.service = options.service;
    this.observer = options.observer;
    this.pollWaitMs = options.pollWaitMs ?? 10_000;
    this.logger = logger.child({ topic: this.topic, sink: this.name });
  }

  get inFlight(): number {
    return this.deliveries.size;
  }

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping.abort(new Error('the dispatcher is stopping'));
    await this.loop;
    await Promise.allSettled([...this.deliveries]);
    await this.sink.close();
  }

  private async run(): Promise<void> {
    const signal = this.stopping.signal;
    let failures = 0;
    while (!signal.aborted) {
      if (this.deliveries.size >= this.concurrency) {
        await Promise.race(this.deliveries); // a slot frees up
        // Let the other answers that arrived in the same I/O turn settle too, so one reserve call refills
        // several slots instead of one call per finished delivery.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      let reserved: Reservation[];
      try {
        reserved = await this.service.reserve(
          {
            topics: [this.topic],
            count: Math.min(100, this.concurrency - this.deliveries.size),
            waitMs: this.pollWaitMs,
            ttrMs: this.ttrMs,
          },
          signal,
        );
        failures = 0;
      } catch (err) {
        if (isDelayqError(err) && err.code === 'E_SHUTTING_DOWN') return;
        failures++;
        this.logger.warn({ err }, 'reserve failed; backing off');
        await sleep(Math.min(2000, 50 * 2 ** Math.min(failures, 6)), signal);
        continue;
      }
      for (const reservation of reserved) {
        const delivery = this.deliver(reservation).finally(() => this.deliveries.delete(delivery));
        this.deliveries.add(delivery);
      }
    }
  }

  private async deliver({ job, token }: Reservation): Promise<void> {
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
    const startedAt = performance.now();
    let result: DeliveryResult;
    try {
      result = await this.sink.deliver(job, attempt.signal);
    } catch (err) {
      result = failed(`the sink threw: ${(err as Error).message}`); // sinks should not throw; be safe anyway
    } finally {
      clearTimeout(timer);
    }
    this.observer?.observe({ name: this.name, type: this.sink.type }, result, performance.now() - startedAt);
    try {
      if (result.ok) {
        await this.service.finish(job.id, token);
      } else {
        const { decision } = await this.service.fail(job.id, token, { error: result.reason, bury: !result.retryable });
        this.logger.info(
          { jobId: job.id, attempt: job.attempts, reason: result.reason, decision: decision.action },
          'delivery failed',
        );
      }
    } catch (err) {
      // Stale token (the TTR lapsed and the reaper took over) or the store is down: the reservation
      // lapses and the job is retried, so at worst it is delivered twice, never lost.
      this.logger.warn({ err, jobId: job.id }, 'could not record the delivery outcome; the TTR will retry the job');
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
