import { DelayqError } from '../../core/errors.js';
import type { RedisConnection } from './connection.js';
import { PREFIX_RE } from './keys.js';

/** How a RedisStore connects and lays out its keys. */
export interface RedisStoreOptions {
  /** `redis://…`, `redis-sentinel://…` or `redis-cluster://…` (see parseRedisUrl); or give `connection`. */
  url?: string;
  connection?: RedisConnection;
  /** Name of this process in job history. */
  nodeId: string;
  /** Key prefix; several stores can share one Redis under different prefixes. @defaultValue dq */
  prefix?: string;
  /**
   * Partitions (hash-tag buckets) a topic is spread over; fixed for the life of the data, which records it
   * (partition-count.ts): a store opened with another count is refused. 'auto': the recorded count, else on a
   * Cluster the least from 8 that spreads evenly over its masters, else 1. @defaultValue 8
   */
  partitions?: number | 'auto';
  /** Delayed sets per topic and partition while the topic is small; they double as its backlog grows (push.lua). @defaultValue 128 */
  delayBuckets?: number;
  /**
   * promoteDue leaves the due jobs of a topic whose consumers are draining it for reserve to take in one
   * transition (one partition only); false promotes every due job, as a store without the shortcut does.
   * @defaultValue true
   */
  leaveDueToConsumers?: boolean | undefined;
  /** Approximate MAXLEN of the job event stream. @defaultValue config's events.maxLength */
  eventsMaxLength?: number;
  /** A command not answered within this fails with E_STORE_UNAVAILABLE, ms. @defaultValue config's redis.commandTimeoutMs */
  commandTimeoutMs?: number;
  /** One connection attempt gives up after this, ms. @defaultValue config's redis.connectTimeoutMs */
  connectTimeoutMs?: number;
}

/** Refuses a key layout outside its bounds, naming the option. */
export function checkLayout(layout: { prefix: string; partitions: number; delayBuckets: number }): void {
  const { prefix, partitions, delayBuckets } = layout;
  if (!Number.isInteger(delayBuckets) || delayBuckets < 1 || delayBuckets > 65_536) {
    throw new DelayqError('E_CONFIG', 'redis.delayBuckets: an integer from 1 to 65536', {
      field: 'redis.delayBuckets',
    });
  }
  if (!PREFIX_RE.test(prefix))
    throw new DelayqError('E_CONFIG', 'redis.prefix: 1–64 of letters, digits, . _ : -', { field: 'redis.prefix' });
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1024) {
    throw new DelayqError('E_CONFIG', 'redis.partitions: an integer from 1 to 1024', { field: 'redis.partitions' });
  }
}
