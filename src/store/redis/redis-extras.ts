import type { EpochMs } from '../../core/clock.js';
import type { JobNumbers } from '../job-numbers.js';
import type { TopicPauses } from '../topic-pauses.js';
import type { RedisClient } from './connection.js';

/**
 * Paused topics and job numbers on Redis, outside the job record layout and the partitions: each under
 * its own hash tag, so in a Cluster each lives in one slot of its own.
 *   {prefix:pauses}       hash  topic → until (epoch ms, '' = until resumed)
 *   {prefix:numbers}:seq  string the last number given
 *   {prefix:numbers}:byId hash  id → number
 *   {prefix:numbers}:byNo hash  number → id
 */
type Guard = <T>(fn: (client: RedisClient) => Promise<T>) => Promise<T>;

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

/** Gives each id without a number the next one, all in one script call (atomic among processes). */
const NUMBER_IDS = `
local out = {}
for i, id in ipairs(ARGV) do
  local n = redis.call('HGET', KEYS[2], id)
  if not n then
    n = redis.call('INCR', KEYS[1])
    redis.call('HSET', KEYS[2], id, n)
    redis.call('HSET', KEYS[3], n, id)
  end
  out[i] = tonumber(n)
end
return out`;

export class RedisJobNumbers implements JobNumbers {
  private readonly guard: Guard;
  private readonly prefix: () => string;

  constructor(guard: Guard, prefix: () => string) {
    this.guard = guard;
    this.prefix = prefix;
  }

  private keys(): [seq: string, byId: string, byNumber: string] {
    const tag = `{${this.prefix()}:numbers}`;
    return [`${tag}:seq`, `${tag}:byId`, `${tag}:byNo`];
  }

  async numbersOf(ids: readonly string[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const keys = this.keys();
    const numbers = (await this.guard((c) => c.eval(NUMBER_IDS, 3, ...keys, ...ids))) as number[];
    return numbers.map(Number);
  }

  async idOf(number: number): Promise<string | null> {
    const byNumber = this.keys()[2];
    return this.guard((c) => c.hget(byNumber, String(number)));
  }
}
