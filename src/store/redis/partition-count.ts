/**
 * The partitions a store's data is written in, kept beside the data (`{prefix:layout}`: `partitions`, the
 * count, and `tags`, their hash-tag numbers when not 0, 1, 2…) so that every process on it uses the same ones
 * whatever its configuration says, and a configured count that differs is refused instead of hiding jobs in
 * partitions the other processes never read.
 *
 * The automatic choice on a Cluster is made once, when the store's data is first written: the same number of
 * partitions on every master (at least 8 in all: 9 on 3 masters), each one's hash tag `{prefix:n}` picked so
 * its slot is on that master, so the backlog and the work split evenly over the shards (the 8 partitions
 * `{dq:0}`…`{dq:7}` fell 4 / 2 / 2 on 3 masters). It reads the Cluster's slot map at that moment: a Cluster
 * resharded later keeps the partitions where the slots went. Data written before the layout was kept (no
 * record, partition 0 in use) was written in the automatic 8 partitions of that time.
 */
import { Cluster } from 'ioredis';
import { DelayqError } from '../../core/errors.js';
import type { RedisClient } from './connection.js';
import { DEFAULT_PARTITIONS, layoutKey, partitionKeys } from './keys.js';

export type PartitionSetting = number | 'auto';

/**
 * The hash-tag numbers of the store's partitions: partition i's keys are `{prefix:tags[i]}:…`. Recorded with
 * the data; 0, 1, 2… unless the automatic choice on a Cluster picked others.
 */
export async function partitionTags(client: RedisClient, prefix: string, setting: PartitionSetting): Promise<number[]> {
  const key = layoutKey(prefix);
  let [count, tags] = await client.hmget(key, 'partitions', 'tags');
  if (count === null) {
    const chosen = setting !== 'auto' ? sequence(setting) : await automaticTags(client, prefix);
    // Two processes starting together on new data: the first record holds, and both use it.
    await recordPartitions(client, prefix, chosen);
    [count, tags] = await client.hmget(key, 'partitions', 'tags');
  }
  const recorded = tags ? tags.split(',').map(Number) : sequence(Number(count));
  if (setting !== 'auto' && setting !== recorded.length)
    throw new DelayqError(
      'E_CONFIG',
      `redis.partitions is ${setting} but the data under prefix "${prefix}" is written in ${recorded.length} ` +
        `partitions (fixed for the life of the data): set it to ${recorded.length} or to 0 (automatic)`,
      { field: 'redis.partitions' },
    );
  return recorded;
}

/** Writes the count and tags unless a count is there already (one script: both fields or neither). */
export async function recordPartitions(client: RedisClient, prefix: string, tags: readonly number[]): Promise<void> {
  await client.eval(RECORD_ONCE, 1, layoutKey(prefix), tags.length, tags.join(','));
}

const RECORD_ONCE = `if redis.call('HSETNX', KEYS[1], 'partitions', ARGV[1]) == 1 then
  redis.call('HSET', KEYS[1], 'tags', ARGV[2]) end`;

const sequence = (count: number): number[] => Array.from({ length: count }, (_, p) => p);

/**
 * On a Cluster, new data: as many partitions per master (at least 8 in all), each master's taken from the
 * first tag numbers whose slots it serves. Data already there without a record: the 8 of that time.
 */
async function automaticTags(client: RedisClient, prefix: string): Promise<number[]> {
  if (!(client instanceof Cluster)) return sequence(1);
  if ((await client.exists(partitionKeys(prefix, 0).counts)) === 1) return sequence(DEFAULT_PARTITIONS);
  const masterOf = masterOfSlot(await client.cluster('SLOTS'));
  const masters = new Set(masterOf.values()).size;
  const perMaster = Math.ceil(DEFAULT_PARTITIONS / masters);
  const taken = new Map<string, number>();
  const tags: number[] = [];
  for (let tag = 0; tags.length < perMaster * masters && tag < MAX_TAG; tag++) {
    const slot = Number(await client.cluster('KEYSLOT', partitionKeys(prefix, tag).counts));
    const master = masterOf.get(slot) ?? '?';
    if ((taken.get(master) ?? 0) >= perMaster) continue;
    taken.set(master, (taken.get(master) ?? 0) + 1);
    tags.push(tag);
  }
  return tags.length === perMaster * masters ? tags : sequence(DEFAULT_PARTITIONS);
}

/** Tag numbers looked at for an even spread (a master serving few slots may need many). */
const MAX_TAG = 4096;

/** slot → the id of the master serving it, from CLUSTER SLOTS ([start, end, [host, port, id], …replicas]). */
function masterOfSlot(reply: unknown): Map<number, string> {
  const bySlot = new Map<number, string>();
  for (const [start, end, master] of reply as [number, number, [string, number, string?]][]) {
    const id = master[2] ?? `${master[0]}:${master[1]}`;
    for (let slot = start; slot <= end; slot++) bySlot.set(slot, id);
  }
  return bySlot;
}
