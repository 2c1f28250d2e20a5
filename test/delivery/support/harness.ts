import { Registry } from 'prom-client';
import { SinkMetrics } from '../../../src/metrics.js';
import { Dispatcher } from '../../../src/delivery/dispatcher.js';
import { DelayqService } from '../../../src/service/service.js';
import { createSink } from '../../../src/delivery/create-sink.js';
import { SinkBindings } from '../../../src/delivery/sink-bindings.js';
import { SqliteBindingStore } from '../../../src/store/sqlite/sqlite-binding-store.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import type { PushInput } from '../../../src/core/job-input.js';
import type { Job } from '../../../src/core/job.js';

/** A whole push pipeline on the real clock: SQLite store, service + timer, bindings, dispatcher, metrics. */
export class PushHarness {
  readonly service: DelayqService;
  readonly bindings: SinkBindings;
  readonly dispatcher: Dispatcher;
  readonly registry = new Registry();

  /** `path`: a SQLite file holding both jobs and bindings (default: in memory). */
  constructor(options: { pollWaitMs?: number; path?: string } = {}) {
    const path = options.path ?? ':memory:';
    this.service = new DelayqService({ store: new SqliteStore({ path, nodeId: `sink-test-${process.pid}` }) });
    this.bindings = new SinkBindings({ store: new SqliteBindingStore({ path }), refreshIntervalMs: 60_000 });
    this.dispatcher = new Dispatcher({
      service: this.service,
      bindings: this.bindings,
      createSink,
      observer: new SinkMetrics(this.registry),
      pollWaitMs: options.pollWaitMs ?? 2000,
    });
  }

  async start(): Promise<this> {
    await this.service.start();
    await this.bindings.start();
    this.dispatcher.start();
    return this;
  }

  async stop(): Promise<void> {
    await this.dispatcher.stop();
    await this.bindings.close();
    await this.service.close();
  }

  /** Pushes a job with a fast retry policy (many attempts, short fixed backoff) unless told otherwise. */
  async push(input: PushInput): Promise<Job> {
    const { job } = await this.service.push({
      retry: { maxAttempts: 30, backoff: { type: 'fixed', delayMs: 200 } },
      ...input,
    });
    return job;
  }

  job(id: string): Promise<Job> {
    return this.service.get(id);
  }

  async metric(name: string, labels: Record<string, string>): Promise<number> {
    const metric = (await this.registry.getMetricsAsJSON()).find(
      (m) => m.name === name || name.startsWith(`${m.name}_`),
    );
    const values = (metric?.values ?? []) as {
      value: number;
      labels: Record<string, string | number>;
      metricName?: string;
    }[];
    return values
      .filter(
        (v) =>
          (v.metricName === undefined || v.metricName === name) &&
          Object.entries(labels).every(([k, l]) => String(v.labels[k]) === l),
      )
      .reduce((sum, v) => sum + v.value, 0);
  }
}

/** Polls `check` until it returns a truthy value or the deadline passes (then throws with `what`). */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  everyMs = 20,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
