import type { RedisClient } from './connection.js';
import type { PartitionKeys } from './keys.js';
import { buildIdIndex } from './id-index-build.js';
import { RECORD_LAYOUT, UPGRADABLE_LAYOUTS } from './record-layout.js';
import { layoutRefusal } from './redis-errors.js';
import { runScript } from './scripts.js';

/** Entries an upgrade call reads (lua/upgrade-layout.lua): bounds how long one call holds Redis. */
const UPGRADE_SLICE = 1000;
/** An upgrade call's answer: slices remain. */
const UPGRADE_GOES_ON = 2;

/**
 * Registers this process's node name in every partition and answers its index in each (history entries
 * carry the index, not the name). A partition in an upgradable older layout is upgraded in place first
 * (id-index-build.ts, then lua/upgrade-layout.lua a slice per call, so Redis answers other clients between
 * them); one in any other layout is refused.
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
    const found = Number(/LAYOUT (\d+)$/.exec(err instanceof Error ? err.message : String(err))?.[1]);
    if (!UPGRADABLE_LAYOUTS.includes(found)) throw err;
    // Every layout before 7 lacks the id index: built in short steps first, then the upgrade's other parts,
    // a slice per call.
    await buildIdIndex(client, k);
    const upgrade = () =>
      runScript(client, 'upgrade-layout', k.scriptKeys, [k.topicPrefix, found, RECORD_LAYOUT, UPGRADE_SLICE]);
    while ((await upgrade()) === UPGRADE_GOES_ON) {
      /* the next slice */
    }
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
