import type { Cluster, Redis } from 'ioredis';
import type { BaseLogger } from 'pino';
import type { BindingStore } from './binding-store.js';
import type { ScheduleStore } from './schedule-store.js';
import type { Store } from './store.js';

/**
 * One storage backend: everything delayq keeps, made from one config by the backend's own folder
 * (sqlite/sqlite-backend.ts, redis/redis-backend.ts) and chosen in one place (create-backend.ts). Nothing
 * is open yet: each part is opened by its user (the service opens `jobs`, the runtime `schedules`,
 * delivery its binding store, the HTTP server its rate-limit counters). A new backend is one more folder
 * with such a factory, proven by the store contract suite (src/testing/, `delayq/testing`). The SQL journal
 * is a decorator over a backend's jobs and schedules (journal/journaled-backend.ts), not a backend.
 */
export interface Backend {
  /** Where the data lives, safe to log (no credentials): the SQLite file, the Redis servers. */
  readonly location: string;
  /** The jobs, with their parts: pauses, job numbers, the job event log, series, consumers (store.ts). */
  readonly jobs: Store;
  /** Periodic schedules, beside the jobs (schedule-store.ts). */
  readonly schedules: ScheduleStore;
  /** A store of delivery bindings beside the jobs (binding-store.ts), keeping each topic's `Sink` as given. */
  bindings<Sink>(): BindingStore<Sink>;
  /** Counters the HTTP rate limiter shares with every process on this backend; absent: each process counts its own. */
  readonly rateLimits?: SharedRateLimits;
}

/** Rate-limit counters shared by the processes of one backend: a Redis client for @fastify/rate-limit, and its keys' prefix. */
export interface SharedRateLimits {
  readonly namespace: string;
  /** A client that keeps reconnecting by itself: a Redis unreachable now is logged, not thrown. */
  connect(log: Pick<BaseLogger, 'warn' | 'info'>): Promise<Redis | Cluster>;
  /** Closes the client without waiting on a Redis that is gone. */
  close(client: Redis | Cluster): Promise<void>;
}
