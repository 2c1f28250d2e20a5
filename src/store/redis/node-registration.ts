import type { RedisClient } from './connection.js';
import type { PartitionKeys } from './keys.js';
import { RECORD_LAYOUT, UPGRADABLE_LAYOUT } from './record-layout.js';
import { layoutRefusal } from './redis-errors.js';
import { runScript } from './scripts.js';

/**
 * Registers this process's node name in every partition and answers its index in each (history entries
 * carry the index, not the name). A partition in the previous layout is upgraded in place first
 * (lua/upgrade-layout.lua); one in any other layout is refused.
 */
export function registerNode(
  client: RedisClient,
  parts: readonly PartitionKeys[],
  nodeId: string,
  prefix: string,
): Promise<number[]> {
  const register = (k: PartitionKeys) =>
    runScript(client, 'register-node', [k.nodes, k.counts, k.jobs], [nodeId, RECORD_LAYOUT]);
  const upgradeThenRegister = async (k: PartitionKeys, err: unknown) => {
    if (!new RegExp(`LAYOUT ${UPGRADABLE_LAYOUT}$`).test(err instanceof Error ? err.message : String(err))) throw err;
    await runScript(client, 'upgrade-layout', k.scriptKeys, [k.topicPrefix, UPGRADABLE_LAYOUT, RECORD_LAYOUT]);
    return register(k);
  };
  return Promise.all(
    parts.map((k) =>
      register(k)
        .catch((err: unknown) => upgradeThenRegister(k, err))
        .then(Number, (err: unknown) => Promise.reject(layoutRefusal(err, prefix, RECORD_LAYOUT))),
    ),
  );
}
