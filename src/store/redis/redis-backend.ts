import type { Backend } from '../backend.js';
import { createRedisClient, parseRedisUrl } from './connection.js';
import { RedisBindingStore } from './redis-binding-store.js';
import { redisRateLimits } from './redis-rate-limits.js';
import { RedisScheduleStore } from './redis-schedule-store.js';
import { RedisStore } from './redis-store.js';
import type { RedisStoreOptions } from './redis-store-options.js';

/** The Redis backend's config (config.ts's `redis` section): the store's options, and the URL every part connects to. */
export type RedisBackendOptions = RedisStoreOptions & {
  url: string;
  prefix: string;
  /** 0: automatic, as config's redis.partitions says (on a Cluster, an even spread over its masters; 1 otherwise). */
  partitions: number;
  commandTimeoutMs: number;
  connectTimeoutMs: number;
};

/**
 * Everything in one Redis (standalone, Sentinel or Cluster): the jobs under `<prefix>:`, the schedules,
 * the delivery bindings and the rate limiter's counters beside them, each part on its own connection made
 * from the same URL and fail-fast tuning, so every delayq process on this Redis shares all of it.
 */
export function redisBackend(options: RedisBackendOptions): Backend {
  const { connection } = parseRedisUrl(options.url);
  const tuning = { commandTimeoutMs: options.commandTimeoutMs, connectTimeoutMs: options.connectTimeoutMs };
  const connect = () => createRedisClient(connection, tuning);
  return {
    location: `${options.url.replace(/\/\/[^@/]*@/, '//')} (prefix ${options.prefix})`,
    jobs: new RedisStore({
      ...options,
      partitions: options.partitions || (options.url.startsWith('redis-cluster://') ? 'auto' : 1),
    }),
    schedules: new RedisScheduleStore({ connect, prefix: options.prefix }),
    bindings: () => new RedisBindingStore({ connect, prefix: `${options.prefix}:` }),
    rateLimits: redisRateLimits(connect, options.prefix),
  };
}
