import type { Config } from '../config.js';
import type { Backend } from './backend.js';
import { redisBackend } from './redis/redis-backend.js';
import { sqliteBackend } from './sqlite/sqlite-backend.js';

/**
 * The backend the config names: the one place in delayq that reads `store.kind`. Each backend is handed
 * its own section of the config (`sqlite`, `redis`) and what every backend takes (the node id, the event
 * log's length).
 */
export function createBackend(config: Readonly<Config>, nodeId: string): Backend {
  const shared = { nodeId, eventsMaxLength: config.events.maxLength };
  switch (config.store.kind) {
    case 'sqlite':
      return sqliteBackend({ ...config.sqlite, ...shared });
    case 'redis':
      return redisBackend({ ...config.redis, ...shared });
  }
}
