/**
 * Optional bearer-token authentication. With no tokens configured every request passes. Otherwise every
 * route but the public ones (health, readiness, API docs) needs `Authorization: Bearer <token>`, and a
 * token limited to topic prefixes may only act on matching topics: routes call `authorizeTopic` for the
 * topics they touch. Tokens are compared by SHA-256 digest, so lookup time does not depend on the secret.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthToken } from '../config.js';
import { DelayqError } from '../core/errors.js';

/** Who made the request; `topicPrefixes: null` means every topic. */
export interface Principal {
  /** The token's name, or `token:` + 12 hex digits of its digest: safe to log, never the secret. */
  id: string;
  topicPrefixes: readonly string[] | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** null when authentication is off: everything is allowed. */
    principal: Principal | null;
  }
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex');

export function isPublicPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  const consoleFiles = path === '/console' || path.startsWith('/console/'); // static files; data goes through the API
  return (
    path === '/health' ||
    path === '/ready' ||
    path === '/openapi.json' ||
    path === '/docs' ||
    path.startsWith('/docs/') ||
    consoleFiles
  );
}

/**
 * Decided on the matched route pattern, not the raw URL: the router decodes `%xx`, so a URL-based test can
 * be fooled by an encoded path. Unknown paths (no route) are not public: they answer 401, not 404.
 */
function isPublicRoute(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route !== undefined && isPublicPath(route);
}

/** The configured tokens by digest; the HTTP and gRPC servers both look bearers up here. */
export function principalsByDigest(tokens: readonly AuthToken[]): Map<string, Principal> {
  return new Map(
    tokens.map((t) => {
      const hex = digest(t.token);
      return [hex, { id: t.name ?? `token:${hex.slice(0, 12)}`, topicPrefixes: t.topics ?? null } satisfies Principal];
    }),
  );
}

/** The principal of an `Authorization` value ("Bearer <token>"), or undefined when it is not a known token. */
export function principalOfBearer(byDigest: ReadonlyMap<string, Principal>, header: string): Principal | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? byDigest.get(digest(match[1]!)) : undefined;
}

export function registerAuth(app: FastifyInstance, tokens: readonly AuthToken[]): void {
  const byDigest = principalsByDigest(tokens);
  app.decorateRequest('principal', null);
  if (byDigest.size === 0) return;
  app.addHook('onRequest', async (request) => {
    if (isPublicRoute(request)) return;
    const header = request.headers.authorization;
    if (!header)
      throw new DelayqError('E_UNAUTHORIZED', 'send Authorization: Bearer <token>', { field: 'authorization' });
    const principal = principalOfBearer(byDigest, header);
    if (!principal)
      throw new DelayqError('E_UNAUTHORIZED', 'the bearer token is not valid', { field: 'authorization' });
    request.principal = principal;
  });
}

export function mayUseTopic(principal: Principal | null, topic: string): boolean {
  return (
    principal === null ||
    principal.topicPrefixes === null ||
    principal.topicPrefixes.some((prefix) => topic.startsWith(prefix))
  );
}

/** Throws E_FORBIDDEN unless the request's token may act on every one of `topics`. */
export function authorizeTopic(
  request: Pick<FastifyRequest, 'principal'>,
  topics: string | readonly string[],
  field = 'topic',
): void {
  const list = typeof topics === 'string' ? [topics] : topics;
  list.forEach((topic, i) => {
    if (!mayUseTopic(request.principal, topic)) {
      throw new DelayqError('E_FORBIDDEN', `this token may not use topic "${topic}"`, {
        field: typeof topics === 'string' ? field : `${field}[${i}]`,
      });
    }
  });
}

/** For routes that need the whole store (purge, unscoped lists): tokens limited to topics are refused. */
export function authorizeAllTopics(request: Pick<FastifyRequest, 'principal'>): void {
  if (request.principal && request.principal.topicPrefixes !== null) {
    throw new DelayqError('E_FORBIDDEN', 'this token is limited to some topics; this operation spans all topics');
  }
}
