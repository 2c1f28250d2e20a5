/**
 * The rate limiter's own Redis connection, for a delayq whose store is Redis: every instance counts in the
 * same keys (`<redis.prefix>:ratelimit:<token or ip>`), so N instances together allow `max` per window,
 * not N × max. Made like the store's connections (same URL, so Sentinel and Cluster work; same fail-fast
 * tuning) and closed with the app.
 */
import type { SharedRateLimits } from '../backend.js';
import { closeClient, type RedisClient } from './connection.js';

/**
 * The shared counters under the deployment's key prefix. A Redis that cannot be reached at connect is not
 * fatal: the client keeps reconnecting in the background, and until it is back the limiter lets requests
 * through uncounted (skipOnError); the outage and the recovery are logged once each.
 */
export function redisRateLimits(connectClient: () => RedisClient, redisPrefix: string): SharedRateLimits {
  return {
    namespace: `${redisPrefix}:ratelimit:`,
    async connect(log) {
      const client = connectClient();
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
    },
    close: closeClient,
  };
}
