import type { EpochMs } from '../../core/clock.js';
import type { ConsumerDirectory, ConsumerRecord } from '../consumer-directory.js';
import type { RedisClient } from './connection.js';

type Guard = <T>(fn: (client: RedisClient) => Promise<T>) => Promise<T>;

/**
 * The consumers of every process on one Redis, outside the partitions, under one hash tag (one Cluster slot):
 *   {prefix:consumers}          zset   node → until (epoch ms): the nodes that published, and till when
 *   {prefix:consumers}:<node>   string JSON of that node's consumers, with the same expiry (PX)
 * A node's key expires by itself when the node stops refreshing it; the index drops nodes past their time.
 */
export class RedisConsumerDirectory implements ConsumerDirectory {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private get index(): string {
    return `{${this.prefix()}:consumers}`;
  }

  private nodeKey(node: string): string {
    return `${this.index}:${node}`;
  }

  async publish(node: string, consumers: readonly ConsumerRecord[], ttlMs: number, now: EpochMs): Promise<void> {
    await this.guard(async (c) => {
      const tx = c.multi();
      if (consumers.length === 0) tx.del(this.nodeKey(node)).zrem(this.index, node);
      else
        tx.set(this.nodeKey(node), JSON.stringify(consumers), 'PX', ttlMs)
          .zadd(this.index, now + ttlMs, node)
          .zremrangebyscore(this.index, '-inf', now);
      await tx.exec();
    });
  }

  async list(now: EpochMs): Promise<ConsumerRecord[]> {
    return this.guard(async (c) => {
      const nodes = await c.zrangebyscore(this.index, `(${now}`, '+inf');
      if (nodes.length === 0) return [];
      const texts = await c.mget(...nodes.map((n) => this.nodeKey(n)));
      return texts.flatMap((text) => (text ? (JSON.parse(text) as ConsumerRecord[]) : []));
    });
  }
}
