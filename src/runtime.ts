/**
 * A whole delayq node: the service (store + timer), delivery (binding store, binding table, dispatcher) and
 * the metrics registry, started and stopped in the right order. `delayq serve` and the tests that need
 * the full node build one with `createRuntime`; embedding applications that only want the queue can
 * still use `createService`.
 */
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import { createJournaledBackend, createService, nodeIdOf, type CreateServiceOptions } from './create-service.js';
import {
  createMetricsRegistry,
  registerStoreResetCounter,
  registerStoreWriteLossCounter,
  SinkMetrics,
} from './metrics.js';
import { registerServiceMetrics } from './observe/service-metrics.js';
import { Dispatcher } from './delivery/dispatcher.js';
import type { DelayqService } from './service/service.js';
import { createSink } from './delivery/create-sink.js';
import type { Backend, SharedRateLimits } from './store/backend.js';
import type { BindingStore } from './store/binding-store.js';
import type { SinkConfig } from './delivery/sink-config.js';
import { SinkBindings } from './delivery/sink-bindings.js';
import { ScheduleRunner } from './schedules/schedule-runner.js';
import type { ScheduleStore } from './store/schedule-store.js';
import { Schedules } from './schedules/schedules.js';

export class DelayqRuntime {
  readonly config: Readonly<Config>;
  readonly service: DelayqService;
  readonly sinks: SinkBindings;
  readonly metrics: Registry;
  readonly schedules: Schedules;
  private readonly scheduleRunner: ScheduleRunner;
  private readonly dispatcher: Dispatcher;
  private readonly logger: Logger;
  /** The backend's shared rate-limit counters, for the HTTP server (buildApp's `rateLimits`). */
  readonly rateLimits: SharedRateLimits | undefined;
  /** Where the backend keeps the data (Backend.location), for the start log. */
  readonly location: string;
  private unlistSinks: () => void = () => undefined;

  constructor(
    config: Readonly<Config>,
    service: DelayqService,
    logger: Logger,
    parts: Pick<Backend, 'location' | 'schedules' | 'rateLimits'> & { bindingStore: BindingStore<SinkConfig> },
  ) {
    const { schedules: scheduleStore, bindingStore } = parts;
    this.config = config;
    this.rateLimits = parts.rateLimits;
    this.location = parts.location;
    this.scheduleRunner = new ScheduleRunner(scheduleStore, service, config.schedules, (err) =>
      logger.error({ err }, 'schedule round failed; retrying'),
    );
    this.schedules = new Schedules(scheduleStore, service, () => this.scheduleRunner.wakeNow());
    this.service = service;
    this.logger = logger;
    this.metrics = createMetricsRegistry();
    registerServiceMetrics(service, this.metrics, config.metrics);
    registerStoreResetCounter(this.metrics, () => service.storeNotices.resets);
    registerStoreWriteLossCounter(this.metrics, () => service.storeNotices.writeLosses);
    this.sinks = new SinkBindings({
      store: bindingStore,
      refreshIntervalMs: config.sinks.refreshIntervalMs,
      onError: (err) => logger.warn({ err }, 'reading delivery bindings failed; keeping the last ones'),
    });
    this.dispatcher = new Dispatcher({
      service,
      bindings: this.sinks,
      createSink,
      observer: new SinkMetrics(this.metrics),
      logger: logger.child({ component: 'dispatcher' }),
      now: () => service.clock.now(),
    });
  }

  /** Opens the store, starts the timer, loads delivery bindings (config seeds missing ones) and starts delivery. */
  async start(): Promise<void> {
    await this.service.start();
    await this.sinks.start();
    const seeds = { ...this.config.sinks.routes, ...this.config.sinks.bindings };
    for (const [topic, sink] of Object.entries(seeds)) {
      if (!(await this.sinks.getBinding(topic))) await this.sinks.setBinding(topic, sink);
    }
    this.dispatcher.start();
    this.unlistSinks = this.listSinkPumps();
    await this.schedules.store.open();
    this.scheduleRunner.start();
  }

  /** Each bound topic's pump is a consumer of that topic (GET /v1/consumers); returns the way back. */
  private listSinkPumps(): () => void {
    const unlist = this.service.consumers.addSource(() =>
      this.dispatcher.status().map((p) => ({
        key: `sink-${p.topic}`,
        kind: 'sink' as const,
        topics: [p.topic],
        since: p.since,
        remote: `${p.type} ${p.sink}`,
        held: p.inFlight,
      })),
    );
    const unsubscribe = this.sinks.subscribe(() => this.service.consumers.changed());
    return () => {
      unsubscribe();
      unlist();
    };
  }

  /** Finishes in-flight deliveries, then closes the bindings and the service (which settles in-flight calls). */
  async close(): Promise<void> {
    await this.scheduleRunner.stop();
    await this.schedules.store.close();
    this.unlistSinks();
    await this.dispatcher.stop();
    await this.sinks.close();
    await this.service.close();
  }
}

export interface CreateRuntimeOptions extends CreateServiceOptions {
  /** Use this binding store instead of the backend's (tests). */
  bindingStore?: BindingStore<SinkConfig>;
  /** Use this schedule store instead of the backend's (tests). */
  scheduleStore?: ScheduleStore;
}

export function createRuntime(config: Readonly<Config>, options: CreateRuntimeOptions = {}): DelayqRuntime {
  const logger = options.logger ?? pino({ level: 'silent' });
  const backend = options.backend ?? createJournaledBackend(config, nodeIdOf(config), logger);
  const service = createService(config, { ...options, backend, logger: logger.child({ component: 'service' }) });
  return new DelayqRuntime(config, service, logger, {
    ...backend,
    schedules: options.scheduleStore ?? backend.schedules,
    bindingStore: options.bindingStore ?? backend.bindings<SinkConfig>(),
  });
}
