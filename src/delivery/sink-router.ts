import { DEFAULTS } from '../config.js';
import { systemClock, type Clock } from '../core/clock.js';
import { validateTopic } from '../core/job-input.js';
import type { RouteStore, SinkRoute } from './route-store.js';
import { parseSinkConfig, redactSinkConfig } from './sink-config.js';

export interface SinkRouterOptions {
  store: RouteStore;
  clock?: Clock;
  /**
   * How often the router checks the route store's version for changes made by other instances.
   * Local changes apply at once. @defaultValue config's sinks.refreshIntervalMs
   */
  refreshIntervalMs?: number;
  /** Called when a refresh fails (route store unreachable); the router keeps its last routes. */
  onError?: (err: unknown) => void;
}

export type RouteListener = (topic: string, route: SinkRoute | null) => void;

/**
 * Which push topics go to which sink: the runtime-changeable table behind the dispatcher. `setRoute`,
 * `getRoute`, `deleteRoute` and `listRoutes` are the methods the HTTP API and the config loader call;
 * every change is written to the RouteStore first and then applied, and changes made by other instances
 * sharing the store are picked up on the next refresh. Listeners (the Dispatcher) hear each change.
 */
export class SinkRouter {
  private readonly store: RouteStore;
  private readonly clock: Clock;
  private readonly refreshIntervalMs: number;
  private readonly onError: (err: unknown) => void;
  private readonly current = new Map<string, SinkRoute>();
  private readonly listeners = new Set<RouteListener>();
  private version: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(options: SinkRouterOptions) {
    this.store = options.store;
    this.clock = options.clock ?? systemClock;
    this.refreshIntervalMs = options.refreshIntervalMs ?? DEFAULTS.sinks.refreshIntervalMs;
    this.onError = options.onError ?? (() => undefined);
  }

  /** Opens the route store and loads the routes; then keeps them in step with other instances. */
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

  /** Hears every change of a route (null: deleted). Returns the unsubscribe function. */
  subscribe(listener: RouteListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The routes in force right now (no I/O). */
  routes(): SinkRoute[] {
    return [...this.current.values()];
  }

  /** Validates and stores a route (replacing the topic's previous one); E_VALIDATION names the field. */
  async setRoute(topic: string, sink: unknown): Promise<SinkRoute> {
    validateTopic(topic);
    const route: SinkRoute = { topic, sink: parseSinkConfig(sink), updatedAt: this.clock.now() };
    await this.store.set(route);
    this.apply(route.topic, route);
    return route;
  }

  async getRoute(topic: string): Promise<SinkRoute | null> {
    validateTopic(topic);
    return this.store.get(topic);
  }

  async deleteRoute(topic: string): Promise<boolean> {
    validateTopic(topic);
    const removed = await this.store.delete(topic);
    this.apply(topic, null);
    return removed;
  }

  async listRoutes(): Promise<SinkRoute[]> {
    return this.store.list();
  }

  /** Re-reads the routes if another instance changed them. Safe to call at any time. */
  refresh(): Promise<void> {
    this.refreshing ??= this.reload().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async reload(): Promise<void> {
    const version = await this.store.version();
    if (version === this.version) return;
    const routes = await this.store.list();
    this.version = version;
    const seen = new Set<string>();
    for (const route of routes) {
      seen.add(route.topic);
      const before = this.current.get(route.topic);
      if (
        !before ||
        before.updatedAt !== route.updatedAt ||
        JSON.stringify(before.sink) !== JSON.stringify(route.sink)
      ) {
        this.apply(route.topic, route);
      }
    }
    for (const topic of [...this.current.keys()]) if (!seen.has(topic)) this.apply(topic, null);
  }

  private apply(topic: string, route: SinkRoute | null): void {
    if (route) this.current.set(topic, route);
    else if (!this.current.delete(topic)) return;
    for (const listener of this.listeners) listener(topic, route);
  }
}

/** A route as the API shows it, secrets masked. */
export function publicRoute(route: SinkRoute): SinkRoute {
  return { ...route, sink: redactSinkConfig(route.sink) };
}
