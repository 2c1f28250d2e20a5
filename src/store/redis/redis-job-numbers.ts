import type { EpochMs } from '../../core/clock.js';
import type { AssignedNumber, JobNumbers, NumberedId } from '../job-numbers.js';
import type { Guard } from './redis-extras.js';

/**
 * Job numbers on Redis, outside the job record layout and the partitions, under a hash tag of their own
 * (in a Cluster they live in one slot):
 *   {prefix:numbers}:seq  string the last number given
 *   {prefix:numbers}:byId hash  id → number
 *   {prefix:numbers}:byNo hash  number → id
 * A counter that is missing (a first start, or a Redis that lost its data: FLUSHALL, a restart without
 * persistence, a failover to an empty replica) starts again at the floor the caller sends: the store's
 * time in ms × NUMBERS_PER_MS. Every number given before the loss is below it (unless numbers were given
 * faster than NUMBERS_PER_MS a millisecond on average since the counter started), so none is given twice,
 * whichever process noticed first; at that rate the numbers stay below 2^53 until the year 2255.
 */
export const NUMBERS_PER_MS = 1000;

/**
 * Gives each id without a number the next one, in order of first appearance, all in one script call (atomic
 * among processes): one HMGET, one INCRBY and one HSET per hash for the whole batch, not commands per id.
 * ARGV[1] is the floor of a missing counter, the ids follow. Answers each id's number, negated when this
 * call gave it. Numbers are written with %d: Lua's own number-to-text (%.14g) would round them.
 */
const NUMBER_IDS = `
local ids = { unpack(ARGV, 2) }
local out = redis.call('HMGET', KEYS[2], unpack(ids))
local new, fresh = {}, 0
for i, id in ipairs(ids) do
  if not out[i] and not new[id] then
    fresh = fresh + 1
    new[id] = fresh
  end
end
local first = 0
if fresh > 0 then
  if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SET', KEYS[1], ARGV[1]) end
  first = redis.call('INCRBY', KEYS[1], fresh) - fresh
  local byId, byNo = {}, {}
  for id, k in pairs(new) do
    local n = string.format('%d', first + k)
    byId[#byId + 1] = id
    byId[#byId + 1] = n
    byNo[#byNo + 1] = n
    byNo[#byNo + 1] = id
  end
  redis.call('HSET', KEYS[2], unpack(byId))
  redis.call('HSET', KEYS[3], unpack(byNo))
end
for i, id in ipairs(ids) do
  out[i] = out[i] and tonumber(out[i]) or -(first + new[id])
end
return out`;

/** Ids a NUMBER_IDS call takes: its HSETs unpack two values per id, under Lua's unpack limit. */
const NUMBER_BATCH = 1000;

/**
 * Gives ids (ARGV: id, number, id, number…) their numbers again: a number given to the id since is dropped, and
 * so is another id's claim on the number (the journal's record wins).
 */
const RESTORE_NUMBERS = `
for i = 1, #ARGV, 2 do
  local id, n = ARGV[i], ARGV[i + 1]
  local had = redis.call('HGET', KEYS[1], id)
  if had ~= n then
    if had and redis.call('HGET', KEYS[2], had) == id then redis.call('HDEL', KEYS[2], had) end
    local holder = redis.call('HGET', KEYS[2], n)
    if holder and redis.call('HGET', KEYS[1], holder) == n then redis.call('HDEL', KEYS[1], holder) end
    redis.call('HSET', KEYS[1], id, n)
    redis.call('HSET', KEYS[2], n, id)
  end
end
return 0`;

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

/** Ids a FORGET_IDS or RESTORE_NUMBERS call takes, under Lua's unpack limit. */
const FORGET_BATCH = 5000;

export class RedisJobNumbers implements JobNumbers {
  private readonly guard: Guard;
  private readonly prefix: () => string;
  private readonly now: () => EpochMs;
  /** The highest number this process saw given: a floor too, should the store's clock ever step back. */
  private highest = 0;

  constructor(guard: Guard, prefix: () => string, now: () => EpochMs) {
    this.guard = guard;
    this.prefix = prefix;
    this.now = now;
  }

  private keys(): [seq: string, byId: string, byNumber: string] {
    const tag = `{${this.prefix()}:numbers}`;
    return [`${tag}:seq`, `${tag}:byId`, `${tag}:byNo`];
  }

  async numbersOf(ids: readonly string[]): Promise<number[]> {
    return (await this.assign(ids)).map((a) => a.number);
  }

  async assign(ids: readonly string[]): Promise<AssignedNumber[]> {
    if (ids.length === 0) return [];
    const keys = this.keys();
    const assigned: AssignedNumber[] = [];
    for (let i = 0; i < ids.length; i += NUMBER_BATCH) {
      const batch = ids.slice(i, i + NUMBER_BATCH);
      const floor = String(Math.max(Math.floor(this.now()) * NUMBERS_PER_MS, this.highest + 1));
      const got = (await this.guard((c) => c.eval(NUMBER_IDS, 3, ...keys, floor, ...batch))) as number[];
      for (const n of got) {
        const number = Math.abs(Number(n));
        if (number > this.highest) this.highest = number;
        assigned.push({ number, given: Number(n) < 0 });
      }
    }
    return assigned;
  }

  async idOf(number: number): Promise<string | null> {
    const byNumber = this.keys()[2];
    return this.guard((c) => c.hget(byNumber, String(number)));
  }

  async restore(numbers: readonly NumberedId[]): Promise<void> {
    const [, byId, byNumber] = this.keys();
    for (let i = 0; i < numbers.length; i += FORGET_BATCH) {
      const pairs = numbers.slice(i, i + FORGET_BATCH).flatMap((n) => [n.id, String(n.number)]);
      await this.guard((c) => c.eval(RESTORE_NUMBERS, 2, byId, byNumber, ...pairs));
    }
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
