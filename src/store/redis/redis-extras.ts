import type { EpochMs } from '../../core/clock.js';
import type { TopicPauses } from '../topic-pauses.js';
import type { RedisClient } from './connection.js';

/**
 * Paused topics on Redis, outside the job record layout and the partitions, under a hash tag of their own
 * (so in a Cluster they live in one slot of their own; job numbers do the same: redis-job-numbers.ts).
 *   {prefix:pauses}       hash  topic → until (epoch ms, '' = until resumed)
 */
export type Guard = <T>(fn: (client: RedisClient) => Promise<T>) => Promise<T>;

export class RedisTopicPauses implements TopicPauses {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private get key(): string {
    return `{${this.prefix()}:pauses}`;
  }

  async pause(topic: string, until: EpochMs | null): Promise<void> {
    await this.guard((c) => c.hset(this.key, topic, until === null ? '' : String(until)));
  }

  async resume(topic: string): Promise<boolean> {
    return (await this.guard((c) => c.hdel(this.key, topic))) > 0;
  }

  async list(): Promise<Map<string, EpochMs | null>> {
    const all = await this.guard((c) => c.hgetall(this.key));
    return new Map(Object.entries(all).map(([topic, until]) => [topic, until === '' ? null : Number(until)]));
  }
}
