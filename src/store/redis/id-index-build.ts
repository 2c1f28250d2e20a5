/**
 * Builds the id index (lua/id-index.lua) of a partition written before it existed (record layout 7), a
 * slice at a time, so Redis is never held for long.
 */
import type { RedisClient } from './connection.js';
import type { PartitionKeys } from './keys.js';
import { runScript } from './scripts.js';

/** Jobs HSCAN hands over per step of the build; each step is one short script. */
const BUILD_SLICE = 500;

/**
 * Adds every job of the partition to its topic's id index, HSCAN slice by slice (lua/upgrade-id-index.lua
 * per slice), so Redis is never held for long. Adding an id twice changes nothing, so two processes
 * building the same partition at once, or a build started again after a crash, end with the same index.
 */
export async function buildIdIndex(client: RedisClient, k: PartitionKeys): Promise<void> {
  let cursor = '0';
  do {
    // HSCAN hands the records too (NOVALUES needs Redis 7.4); the script reads each topic itself.
    const [next, flat] = await client.hscanBuffer(k.jobs, cursor, 'COUNT', BUILD_SLICE);
    cursor = next.toString();
    const ids = flat.filter((_, i) => i % 2 === 0);
    if (ids.length > 0) await runScript(client, 'upgrade-id-index', k.scriptKeys, [k.topicPrefix, ...ids]);
  } while (cursor !== '0');
}
