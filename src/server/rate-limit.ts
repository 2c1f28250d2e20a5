/**
 * Per-token rate limiting (@fastify/rate-limit): at most `max` requests per `windowMs` for each bearer
 * token, or for each client IP when authentication is off. A request over the limit is refused with 429
 * E_RATE_LIMITED and a `retry-after` header. Health, readiness and the API docs are not counted, so a
 * throttled client still sees the service as healthy. When the backend shares its counters (Backend.rateLimits:
 * the Redis backend's, store/redis/redis-rate-limits.ts) every instance counts in them; otherwise (SQLite)
 * they live in this process.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { DelayqError } from '../core/errors.js';
import { isPublicPath } from './auth.js';
import type { SharedRateLimits } from '../store/backend.js';

/** The bucket a request is counted in: its token's identity (set by the auth hook, which runs first), else its IP. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.principal ? `token:${request.principal.id}` : `ip:${request.ip}`;
}

/** Registers the limiter; it applies to the routes registered after it. No-op when `max` is 0. */
export async function registerRateLimit(
  app: FastifyInstance,
  settings: Readonly<Config['rateLimit']>,
  shared: SharedRateLimits | undefined,
): Promise<void> {
  if (settings.max === 0) return;
  const redis = shared ? await shared.connect(app.log) : undefined;
  if (shared && redis) app.addHook('onClose', () => shared.close(redis));
  await app.register(rateLimit, {
    ...(shared && redis ? { redis, nameSpace: shared.namespace } : {}),
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
