import { Redis, type Cluster } from 'ioredis';
import { DelayqError } from '../../core/errors.js';
import { closeClient } from './connection.js';
import type { BindingStore, StoredBinding } from '../binding-store.js';

export interface RedisBindingStoreOptions {
  /** A plain `redis://` URL; or give `connect` (the composition root passes the store's Sentinel/Cluster-aware factory). */
  url?: string;
  /** Builds the (not yet connected, lazyConnect) client. */
  connect?: () => Redis | Cluster;
  /** Key prefix shared by the instances that should see the same bindings. @defaultValue "delayq:" */
  prefix?: string;
}

/**
 * Bindings in one Redis hash (`<prefix>{sink-routes}`: topic → JSON; the key keeps its first name so stored
 * bindings stay readable), plus a counter bumped in the same
 * MULTI on every write, so every delayq instance on this Redis sees the same bindings and notices changes
 * with one GET. Both keys share a hash tag, so this works on Redis Cluster too.
 */
export class RedisBindingStore<Sink> implements BindingStore<Sink> {
  private readonly options: RedisBindingStoreOptions;
  private readonly hashKey: string;
  private readonly versionKey: string;
  private redis: Redis | Cluster | undefined;

  constructor(options: RedisBindingStoreOptions) {
    this.options = options;
    const prefix = options.prefix ?? 'delayq:';
    this.hashKey = `${prefix}{sink-routes}`;
    this.versionKey = `${prefix}{sink-routes}:version`;
  }

  async open(): Promise<void> {
    if (this.redis) return;
    const redis = this.options.connect
      ? this.options.connect()
      : new Redis(this.options.url ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 2 });
    redis.on('error', () => undefined); // each call reports its own failure
    try {
      await redis.connect();
    } catch (err) {
      redis.disconnect();
      throw new DelayqError('E_STORE_UNAVAILABLE', `cannot reach Redis for sink bindings: ${(err as Error).message}`, {
        cause: err,
      });
    }
    this.redis = redis;
  }

  async close(): Promise<void> {
    const redis = this.redis;
    this.redis = undefined;
    if (redis) await closeClient(redis);
  }

  private get conn(): Redis | Cluster {
    if (!this.redis) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis binding store is not open');
    return this.redis;
  }

  private async call<T>(work: (redis: Redis | Cluster) => Promise<T>): Promise<T> {
    try {
      return await work(this.conn);
    } catch (err) {
      if (err instanceof DelayqError) throw err;
      throw new DelayqError('E_STORE_UNAVAILABLE', `Redis sink bindings: ${(err as Error).message}`, { cause: err });
    }
  }

  async set(binding: StoredBinding<Sink>): Promise<void> {
    const value = JSON.stringify({ sink: binding.sink, updatedAt: binding.updatedAt });
    await this.call((r) => r.multi().hset(this.hashKey, binding.topic, value).incr(this.versionKey).exec());
  }

  async get(topic: string): Promise<StoredBinding<Sink> | null> {
    const value = await this.call((r) => r.hget(this.hashKey, topic));
    return value === null ? null : parse(topic, value);
  }

  async delete(topic: string): Promise<boolean> {
    const replies = await this.call((r) => r.multi().hdel(this.hashKey, topic).incr(this.versionKey).exec());
    return Number(replies?.[0]?.[1] ?? 0) > 0;
  }

  async list(): Promise<StoredBinding<Sink>[]> {
    const all = await this.call((r) => r.hgetall(this.hashKey));
    return Object.entries(all)
      .map(([topic, value]) => parse<Sink>(topic, value))
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
  }

  async version(): Promise<string> {
    return (await this.call((r) => r.get(this.versionKey))) ?? '0';
  }
}

function parse<Sink>(topic: string, value: string): StoredBinding<Sink> {
  const { sink, updatedAt } = JSON.parse(value) as { sink: Sink; updatedAt: number };
  return { topic, sink, updatedAt };
}
