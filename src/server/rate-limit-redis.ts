/**
 * The rate limiter's own Redis connection, for a delayq whose store is Redis: every instance counts in the
 * same keys (`<redis.prefix>:ratelimit:<token or ip>`), so N instances together allow `max` per window,
 * not N × max. Made like the store's connections (same URL, so Sentinel and Cluster work; same fail-fast
 * tuning) and closed with the app.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import { closeClient, createRedisClient, parseRedisUrl, type RedisClient } from '../store/redis/connection.js';

/** Where the shared counters live, under the deployment's key prefix. */
export function rateLimitNamespace(redisPrefix: string): string {
  return `${redisPrefix}:ratelimit:`;
}

/**
 * Connects the limiter's client. A Redis that cannot be reached now is not fatal: the client keeps
 * reconnecting in the background, and until it is back the limiter lets requests through uncounted
 * (skipOnError); the outage and the recovery are logged once each.
 */
export async function connectRateLimitRedis(
  config: Pick<Readonly<Config>, 'redis'>,
  log: FastifyBaseLogger,
): Promise<RedisClient> {
  const { connection } = parseRedisUrl(config.redis.url);
  const client = createRedisClient(connection, {
    commandTimeoutMs: config.redis.commandTimeoutMs,
    connectTimeoutMs: config.redis.connectTimeoutMs,
  });
  let unreachable = false;
  client.on('error', (err: Error) => {
    if (unreachable) return;
    unreachable = true;
    log.warn({ err: err.message }, 'rate limiter: Redis unreachable; requests are not counted until it is back');
  });
  client.on('ready', () => {
    if (!unreachable) return;
    unreachable = false;
    log.info('rate limiter: Redis reachable again; requests are counted');
  });
  await client.connect().catch(() => undefined); // reported by the error listener; reconnection continues
  return client;
}

/** Closes the client without waiting on a Redis that is gone. */
export async function closeRateLimitRedis(client: RedisClient): Promise<void> {
  await closeClient(client);
}
