import { RedisStore } from '../src/store/redis/redis-store.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { startJournalRedis, type JournalRedis } from '../test/helpers/journal-redis.js';

let redis: JournalRedis | undefined;

/**
 * The inner store a journal benchmark runs over: Redis (a redis-server of our own on a free port of 127.0.0.1:7100–7149,
 * persistence off, emptied before each use) or SQLite in memory.
 */
export async function makeInnerStore(kind: string): Promise<Store> {
  if (kind === 'sqlite') return new SqliteStore({ path: ':memory:', nodeId: 'bench' });
  if (kind === 'redis') {
    redis ??= await startJournalRedis();
    await redis.flushAll();
    return new RedisStore({ url: redis.url, nodeId: 'bench', commandTimeoutMs: 30_000 });
  }
  throw new Error(`unknown BENCH_INNER ${kind} (redis | sqlite)`);
}

export async function stopInnerServers(): Promise<void> {
  await redis?.stop();
  redis = undefined;
}
