import type { Config } from '../config.js';
import { createRedisClient, parseRedisUrl } from '../store/redis/connection.js';
import { RedisScheduleStore } from './redis-schedule-store.js';
import type { ScheduleStore } from './schedule-store.js';
import { SqliteScheduleStore } from './sqlite-schedule-store.js';

/** Schedules live beside the jobs: in the job file's `schedules` table, or in the same Redis. */
export function createScheduleStore(config: Readonly<Config>): ScheduleStore {
  if (config.store.kind === 'redis') {
    const { connection } = parseRedisUrl(config.redis.url);
    const { commandTimeoutMs, connectTimeoutMs } = config.redis;
    const tuning = { commandTimeoutMs, connectTimeoutMs };
    return new RedisScheduleStore({
      connect: () => createRedisClient(connection, tuning),
      prefix: config.redis.prefix,
    });
  }
  return new SqliteScheduleStore({ path: config.sqlite.path });
}
