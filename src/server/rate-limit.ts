/**
 * Per-token rate limiting (@fastify/rate-limit): at most `max` requests per `windowMs` for each bearer
 * token, or for each client IP when authentication is off. A request over the limit is refused with 429
 * E_RATE_LIMITED and a `retry-after` header. Health, readiness and the API docs are not counted, so a
 * throttled client still sees the service as healthy. With the Redis store the counters live in that Redis
 * (rate-limit-redis.ts), shared by every instance; with SQLite they live in this process.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { DelayqError } from '../core/errors.js';
import { isPublicPath } from './auth.js';
import { closeRateLimitRedis, connectRateLimitRedis, rateLimitNamespace } from './rate-limit-redis.js';

/** The bucket a request is counted in: its token's identity (set by the auth hook, which runs first), else its IP. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.principal ? `token:${request.principal.id}` : `ip:${request.ip}`;
}

/** Registers the limiter; it applies to the routes registered after it. No-op when `max` is 0. */
export async function registerRateLimit(
  app: FastifyInstance,
  config: Pick<Readonly<Config>, 'rateLimit' | 'store' | 'redis'>,
): Promise<void> {
  const settings = config.rateLimit;
  if (settings.max === 0) return;
  const redis = config.store.kind === 'redis' ? await connectRateLimitRedis(config, app.log) : undefined;
  if (redis) app.addHook('onClose', () => closeRateLimitRedis(redis));
  await app.register(rateLimit, {
    ...(redis ? { redis, nameSpace: rateLimitNamespace(config.redis.prefix) } : {}),
    // A Redis that fails to answer lets the request through uncounted (the plugin's skipOnError) rather than
    // answering 500: the limiter protects the service, it must not take it down with it.
    skipOnError: true,
    global: true,
    max: settings.max,
    timeWindow: settings.windowMs,
    // Route-level onRequest hooks run after the app-level auth hook: the principal is known here.
    hook: 'onRequest',
    keyGenerator: rateLimitKey,
    allowList: (request) => request.routeOptions.url !== undefined && isPublicPath(request.routeOptions.url),
    errorResponseBuilder: (_request, context) =>
      new DelayqError(
        'E_RATE_LIMITED',
        `too many requests: at most ${context.max} per ${settings.windowMs} ms; retry in ${context.after}`,
        {
          details: { limit: context.max, retryAfterMs: context.ttl },
        },
      ),
  });
}
