import type { RedisClient } from './connection.js';
import type { PartitionKeys } from './keys.js';
import { RECORD_LAYOUT } from './record-layout.js';
import { layoutRefusal } from './redis-errors.js';
import { runScript } from './scripts.js';

/**
 * Registers this process's node name in every partition and answers its index in each (history entries
 * carry the index, not the name). Refuses a store written in another record layout.
 */
export function registerNode(
  client: RedisClient,
  parts: readonly PartitionKeys[],
  nodeId: string,
  prefix: string,
): Promise<number[]> {
  const register = (k: PartitionKeys) =>
    runScript(client, 'register-node', [k.nodes, k.counts, k.jobs], [nodeId, RECORD_LAYOUT]);
  return Promise.all(
    parts.map((k) =>
      register(k).then(Number, (err: unknown) => Promise.reject(layoutRefusal(err, prefix, RECORD_LAYOUT))),
    ),
  );
}
