import type { RedisConnection } from './connection.js';

/** How a RedisStore connects and lays out its keys. */
export interface RedisStoreOptions {
  /** `redis://…`, `redis-sentinel://…` or `redis-cluster://…` (see parseRedisUrl); or give `connection`. */
  url?: string;
  connection?: RedisConnection;
  /** Name of this process in job history. */
  nodeId: string;
  /** Key prefix; several stores can share one Redis under different prefixes. @defaultValue dq */
  prefix?: string;
  /** Partitions (hash-tag buckets) a topic is spread over; fixed for the life of the data. @defaultValue 8 */
  partitions?: number;
  /** Delayed sets per topic and partition while the topic is small; they double as its backlog grows (push.lua). @defaultValue 128 */
  delayBuckets?: number;
  /**
   * promoteDue leaves the due jobs of a topic whose consumers are draining it for reserve to take in one
   * transition (one partition only); false promotes every due job, as a store without the shortcut does.
   * @defaultValue true
   */
  leaveDueToConsumers?: boolean | undefined;
  /** A command not answered within this fails with E_STORE_UNAVAILABLE, ms. @defaultValue config's redis.commandTimeoutMs */
  commandTimeoutMs?: number;
  /** One connection attempt gives up after this, ms. @defaultValue config's redis.connectTimeoutMs */
  connectTimeoutMs?: number;
}
