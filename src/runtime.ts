/**
 * A whole delayq node: the service (store + timer), delivery (binding store, binding table, dispatcher) and
 * the metrics registry, started and stopped in the right order. `delayq serve` and the tests that need
 * the full node build one with `createRuntime`; embedding applications that only want the queue can
 * still use `createService`.
 */
import { dirname, join } from 'node:path';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import { createService, type CreateServiceOptions } from './create-service.js';
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
import { RedisBindingStore } from './delivery/redis-binding-store.js';
import type { BindingStore } from './delivery/binding-store.js';
import { SinkBindings } from './delivery/sink-bindings.js';
import { SqliteBindingStore } from './delivery/sqlite-binding-store.js';
import { createRedisClient, parseRedisUrl } from './store/redis/connection.js';
import { createScheduleStore } from './schedule/create-schedule-store.js';
import { JournaledScheduleStore } from './schedule/journaled-schedule-store.js';
import { ScheduleRunner } from './schedule/schedule-runner.js';
import type { ScheduleStore } from './schedule/schedule-store.js';
import { Schedules } from './schedule/schedules.js';

export class DelayqRuntime {
  readonly config: Readonly<Config>;
  readonly service: DelayqService;
  readonly sinks: SinkBindings;
  readonly metrics: Registry;
  readonly schedules: Schedules;
  private readonly scheduleRunner: ScheduleRunner;
  private readonly dispatcher: Dispatcher;
  private readonly logger: Logger;

  constructor(
    config: Readonly<Config>,
    service: DelayqService,
    bindingStore: BindingStore,
    logger: Logger,
    scheduleStore: ScheduleStore,
  ) {
    this.config = config;
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
    await this.schedules.store.open();
    this.scheduleRunner.start();
  }

  /** Finishes in-flight deliveries, then closes the bindings and the service (which settles in-flight calls). */
  async close(): Promise<void> {
    await this.scheduleRunner.stop();
    await this.schedules.store.close();
    await this.dispatcher.stop();
    await this.sinks.close();
    await this.service.close();
  }
}

/** With a SQL journal, schedules are copied into it and put back after each restore of the store. */
function journaledSchedules(service: DelayqService, store: ScheduleStore): ScheduleStore {
  if (!service.journal.available) return store;
  const operations = service.journal.operations();
  const journaled = new JournaledScheduleStore(store, operations.journal);
  operations.onRestore(() => journaled.restoreMissing().then(() => undefined));
  return journaled;
}

/** Where delivery bindings live: beside the jobs (a SQLite file next to the job file, or the same Redis). */
function createBindingStore(config: Readonly<Config>): BindingStore {
  if (config.store.kind === 'redis') {
    const { connection } = parseRedisUrl(config.redis.url);
    const { commandTimeoutMs, connectTimeoutMs } = config.redis;
    const tuning = { commandTimeoutMs, connectTimeoutMs };
    return new RedisBindingStore({
      connect: () => createRedisClient(connection, tuning),
      prefix: `${config.redis.prefix}:`,
    });
  }
  // The file keeps its first name, so bindings stored by earlier versions are found.
  const path = config.sqlite.path === ':memory:' ? ':memory:' : join(dirname(config.sqlite.path), 'routes.db');
  return new SqliteBindingStore({ path });
}

export function createRuntime(
  config: Readonly<Config>,
  options: CreateServiceOptions & { bindingStore?: BindingStore; scheduleStore?: ScheduleStore } = {},
): DelayqRuntime {
  const logger = options.logger ?? pino({ level: 'silent' });
  const service = createService(config, { ...options, logger: logger.child({ component: 'service' }) });
  const scheduleStore = options.scheduleStore ?? journaledSchedules(service, createScheduleStore(config));
  return new DelayqRuntime(config, service, options.bindingStore ?? createBindingStore(config), logger, scheduleStore);
}
