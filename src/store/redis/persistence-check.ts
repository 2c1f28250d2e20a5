import type { StoreWarning } from '../store-notices.js';
import { masters, type RedisClient } from './connection.js';

/**
 * The warnings a Redis's persistence settings call for: a master with neither AOF (`appendonly yes`) nor
 * RDB snapshots (`save` non-empty) comes back empty after any restart. A server that refuses CONFIG
 * (managed Redis) gets an `info` notice instead: we cannot tell, and the operator should check.
 */
export async function persistenceWarnings(client: RedisClient): Promise<StoreWarning[]> {
  const warnings: StoreWarning[] = [];
  for (const node of masters(client)) {
    const server = `${node.options.host}:${node.options.port}`;
    let appendonly: string | undefined;
    let save: string | undefined;
    try {
      appendonly = ((await node.config('GET', 'appendonly')) as string[])[1];
      save = ((await node.config('GET', 'save')) as string[])[1];
    } catch (err) {
      warnings.push({
        level: 'info',
        message: `Redis ${server} refused CONFIG GET, so delayq cannot tell whether it persists its data: without AOF or RDB a restart loses every job`,
        details: { server, error: (err as Error).message },
      });
      continue;
    }
    if (appendonly === 'no' && !save) {
      warnings.push({
        level: 'warn',
        message:
          `Redis ${server} has neither AOF nor RDB persistence (appendonly no, save ""): a restart loses every job. ` +
          'Turn on appendonly (appendfsync everysec or always), or add a SQL journal.',
        details: { server, appendonly, save },
      });
    }
  }
  return warnings;
}
