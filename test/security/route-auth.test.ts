import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicPath } from '../../src/server/auth.js';
import { ADMIN_TOKEN, bearer, startSecureServer, type SecureServer } from './support/secure-server.js';
import { concreteUrl, routeTable, type RouteEntry } from './support/route-table.js';

/**
 * Walks Fastify's route table and proves that, with auth on, every route but the public ones answers 401
 * without a token (and with a wrong one), in the body shape of its protocol, whatever the URL spelling.
 * Public on purpose: /health and /ready (probes of orchestrators carry no token) and the API docs
 * (/docs, /openapi.json: the API's shape, which is public in the repository anyway; no job data), and the
 * web console's static files (/console/: the page asks for a token and sends it to the API; no job data).
 */
let server: SecureServer;
let routes: RouteEntry[];

beforeAll(async () => {
  server = await startSecureServer(7601);
  routes = routeTable(server.app);
});
afterAll(() => server.close());

const PUBLIC = (url: string) =>
  url === '/health' ||
  url === '/ready' ||
  url === '/openapi.json' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  url === '/console' ||
  url.startsWith('/console/');

async function send(route: RouteEntry, headers: Record<string, string> = {}, url = concreteUrl(route.url)) {
  const hasBody = route.method === 'POST';
  const response = await fetch(server.url + url, {
    method: route.method,
    headers: { ...headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
    ...(hasBody ? { body: '{}' } : {}),
    redirect: 'manual',
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** The refusal names E_UNAUTHORIZED in the envelope of its protocol (REST, mykit or Youzan). */
function expectUnauthorized(route: RouteEntry, answer: { status: number; text: string }): void {
  expect({ route: `${route.method} ${route.url}`, status: answer.status }).toEqual({
    route: `${route.method} ${route.url}`,
    status: 401,
  });
  if (route.method === 'HEAD') return;
  const body = JSON.parse(answer.text) as { error?: { code?: string } | string; message?: string };
  const code = typeof body.error === 'object' ? body.error.code : (body.error ?? body.message);
  expect(code).toMatch(/E_UNAUTHORIZED/);
}

describe('route table under auth', () => {
  it('finds every route of the API, the seed-compatible ones included', () => {
    const urls = new Set(routes.map((r) => r.url));
    for (const url of [
      '/v1/jobs',
      '/v1/jobs/batch',
      '/v1/jobs/:id',
      '/v1/jobs/:id/finish',
      '/v1/reserve',
      '/v1/purge',
      '/v1/dead/redrive',
      '/v1/stats',
      '/push',
      '/get/:topic',
      '/finish',
      '/delete',
      '/reStore',
      '/reStore/:id',
      '/reStoreJob',
      '/clearAll',
      '/youzan',
      '/health',
      '/ready',
      '/docs',
    ]) {
      expect(urls).toContain(url);
    }
    expect(routes.length).toBeGreaterThan(40);
  });

  it('answers 401 without a token on every route but health, readiness and the docs', async () => {
    let checked = 0;
    for (const route of routes) {
      const answer = await send(route);
      if (PUBLIC(route.url)) {
        expect(answer.status, `${route.method} ${route.url}`).toBeLessThan(400);
        expect(isPublicPath(route.url)).toBe(true);
      } else {
        expectUnauthorized(route, answer);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('answers 401 to a wrong, malformed or non-bearer token on every protected route', async () => {
    const bad = [
      bearer('not-the-right-token-000000'),
      bearer(`${ADMIN_TOKEN}x`),
      { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
      { authorization: 'Bearer' },
      { authorization: `Bearer ${ADMIN_TOKEN} extra` },
      { authorization: ADMIN_TOKEN },
    ];
    for (const route of routes.filter((r) => !PUBLIC(r.url))) {
      for (const headers of bad) expectUnauthorized(route, await send(route, headers));
    }
  });

  it('cannot be dodged by URL spelling: encoded letters, trailing slash, duplicate slashes, query, unknown paths', async () => {
    for (const route of routes.filter((r) => !PUBLIC(r.url) && r.method !== 'HEAD')) {
      const url = concreteUrl(route.url);
      const encoded = `/%${url.charCodeAt(1).toString(16)}${url.slice(2)}`; // `/push` → `/%70ush`, routed to the same handler
      for (const spelling of [encoded, `${url}?token=${ADMIN_TOKEN}`, `${url}/`, `/${url}`, `${url}#x`]) {
        const answer = await send(route, {}, spelling);
        expect({ spelling, status: answer.status }).toEqual({ spelling, status: 401 });
      }
    }
    // No route: still 401 (an anonymous caller cannot map the API by its 404s).
    expect((await send({ method: 'GET', url: '/v1/nothing-here' })).status).toBe(401);
    expect((await send({ method: 'GET', url: '/health/../v1/stats' })).status).toBe(401);
    expect((await send({ method: 'GET', url: '/docs/../v1/stats' })).status).not.toBe(200);
  });

  it('lets the admin token through on every protected route (the 401s above are about the token, not the route)', async () => {
    for (const route of routes.filter((r) => !PUBLIC(r.url))) {
      const answer = await send(route, bearer(ADMIN_TOKEN));
      expect({ route: `${route.method} ${route.url}`, unauthorized: answer.status === 401 }).toEqual({
        route: `${route.method} ${route.url}`,
        unauthorized: false,
      });
      expect(answer.status).toBeLessThan(500);
    }
  });
});
