import { DEFAULTS } from '../config.js';
import { systemClock, type Clock } from '../core/clock.js';
import { validateTopic } from '../core/job-input.js';
import type { BindingStore, StoredBinding } from '../store/binding-store.js';
import { parseSinkConfig, redactSinkConfig, type SinkConfig } from './sink-config.js';

/** A delivery binding: the topic's jobs go to `sink` instead of waiting for `reserve`. */
export type DeliveryBinding = StoredBinding<SinkConfig>;

export interface SinkBindingsOptions {
  store: BindingStore<SinkConfig>;
  clock?: Clock;
  /**
   * How often the table checks the binding store's version for changes made by other instances.
   * Local changes apply at once. @defaultValue config's sinks.refreshIntervalMs
   */
  refreshIntervalMs?: number;
  /** Called when a refresh fails (binding store unreachable); the table keeps its last bindings. */
  onError?: (err: unknown) => void;
}

export type BindingListener = (topic: string, binding: DeliveryBinding | null) => void;

/**
 * Which topics are delivered to which sink: the runtime-changeable table behind the dispatcher. `setBinding`,
 * `getBinding`, `deleteBinding` and `listBindings` are the methods the HTTP API and the config loader call;
 * every change is written to the BindingStore first and then applied, and changes made by other instances
 * sharing the store are picked up on the next refresh. Listeners (the Dispatcher) hear each change.
 */
export class SinkBindings {
  private readonly store: BindingStore<SinkConfig>;
  private readonly clock: Clock;
  private readonly refreshIntervalMs: number;
  private readonly onError: (err: unknown) => void;
  private readonly current = new Map<string, DeliveryBinding>();
  private readonly listeners = new Set<BindingListener>();
  private version: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(options: SinkBindingsOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.refreshIntervalMs = options.refreshIntervalMs ?? DEFAULTS.sinks.refreshIntervalMs;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Opens the binding store and loads the bindings; then keeps them in step with other instances. */
  async start(): Promise<void> {
    await this.store.open();
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch(this.onError);
    }, this.refreshIntervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing?.catch(() => undefined);
    await this.store.close();
  }

  /** Hears every change of a binding (null: deleted). Returns the unsubscribe function. */
  subscribe(listener: BindingListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The bindings in force right now (no I/O). */
  bindings(): DeliveryBinding[] {
    return [...this.current.values()];
  }

  /** Validates and stores a binding (replacing the topic's previous one); E_VALIDATION names the field. */
  async setBinding(topic: string, sink: unknown): Promise<DeliveryBinding> {
    validateTopic(topic);
    const binding: DeliveryBinding = { topic, sink: parseSinkConfig(sink), updatedAt: this.clock.now() };
    await this.store.set(binding);
    this.apply(binding.topic, binding);
    return binding;
  }

  async getBinding(topic: string): Promise<DeliveryBinding | null> {
    validateTopic(topic);
    return this.store.get(topic);
  }

  async deleteBinding(topic: string): Promise<boolean> {
    validateTopic(topic);
    const removed = await this.store.delete(topic);
    this.apply(topic, null);
    return removed;
  }

  async listBindings(): Promise<DeliveryBinding[]> {
    return this.store.list();
  }

  /** Re-reads the bindings if another instance changed them. Safe to call at any time. */
  refresh(): Promise<void> {
    this.refreshing ??= this.reload().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async reload(): Promise<void> {
    const version = await this.store.version();
    if (version === this.version) return;
    const bindings = await this.store.list();
    this.version = version;
    const seen = new Set<string>();
    for (const binding of bindings) {
      seen.add(binding.topic);
      const before = this.current.get(binding.topic);
      if (
        !before ||
        before.updatedAt !== binding.updatedAt ||
        JSON.stringify(before.sink) !== JSON.stringify(binding.sink)
      ) {
        this.apply(binding.topic, binding);
      }
    }
    for (const topic of [...this.current.keys()]) if (!seen.has(topic)) this.apply(topic, null);
  }

  private apply(topic: string, binding: DeliveryBinding | null): void {
    if (binding) this.current.set(topic, binding);
    else if (!this.current.delete(topic)) return;
    for (const listener of this.listeners) listener(topic, binding);
  }
}

/** A binding as the API shows it, secrets masked. */
export function publicBinding(binding: DeliveryBinding): DeliveryBinding {
  return { ...binding, sink: redactSinkConfig(binding.sink) };
}
