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

/**
 * Gives each id without a number the next one, in order of first appearance, all in one script call (atomic
 * among processes): one HMGET, one INCRBY and one HSET per hash for the whole batch, not commands per id.
 */
const NUMBER_IDS = `
local out = redis.call('HMGET', KEYS[2], unpack(ARGV))
local new, fresh = {}, 0
for i, id in ipairs(ARGV) do
  if not out[i] and not new[id] then
    fresh = fresh + 1
    new[id] = fresh
  end
end
local first = 0
if fresh > 0 then
  first = redis.call('INCRBY', KEYS[1], fresh) - fresh
  local byId, byNo = {}, {}
  for id, k in pairs(new) do
    byId[#byId + 1] = id
    byId[#byId + 1] = first + k
    byNo[#byNo + 1] = first + k
    byNo[#byNo + 1] = id
  end
  redis.call('HSET', KEYS[2], unpack(byId))
  redis.call('HSET', KEYS[3], unpack(byNo))
end
for i, id in ipairs(ARGV) do
  out[i] = out[i] and tonumber(out[i]) or first + new[id]
end
return out`;

/** Ids a NUMBER_IDS call takes: its HSETs unpack two values per id, under Lua's unpack limit. */
const NUMBER_BATCH = 1000;

/** Drops the numbers of purged jobs (ids in ARGV); nothing to read when no job ever got a number. */
const FORGET_IDS = `
if redis.call('HLEN', KEYS[1]) == 0 then return 0 end
local numbers = redis.call('HMGET', KEYS[1], unpack(ARGV))
local known = {}
for _, n in ipairs(numbers) do
  if n then known[#known + 1] = n end
end
if #known == 0 then return 0 end
redis.call('HDEL', KEYS[1], unpack(ARGV))
redis.call('HDEL', KEYS[2], unpack(known))
return #known`;

/** Ids a FORGET_IDS call takes, under Lua's unpack limit. */
const FORGET_BATCH = 5000;

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
    const numbers: number[] = [];
    for (let i = 0; i < ids.length; i += NUMBER_BATCH) {
      const batch = ids.slice(i, i + NUMBER_BATCH);
      const got = (await this.guard((c) => c.eval(NUMBER_IDS, 3, ...keys, ...batch))) as number[];
      for (const n of got) numbers.push(Number(n));
    }
    return numbers;
  }

  async idOf(number: number): Promise<string | null> {
    const byNumber = this.keys()[2];
    return this.guard((c) => c.hget(byNumber, String(number)));
  }

  /** Drops the numbers of these ids (their jobs were purged); a number is never given again. */
  async forget(ids: readonly string[]): Promise<void> {
    const [, byId, byNumber] = this.keys();
    for (let i = 0; i < ids.length; i += FORGET_BATCH) {
      const batch = ids.slice(i, i + FORGET_BATCH);
      await this.guard((c) => c.eval(FORGET_IDS, 2, byId, byNumber, ...batch));
    }
  }
}
