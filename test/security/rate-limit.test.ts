import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ADMIN_TOKEN, ORDERS_TOKEN, bearer, startSecureServer, type SecureServer } from './support/secure-server.js';
import { waitFor } from '../helpers/http-server.js';

/** Per-token rate limiting: one token's flood does not throttle another; 429 E_RATE_LIMITED; probes exempt. */
const MAX = 5;
let server: SecureServer;

beforeAll(async () => {
  server = await startSecureServer(7604, { overrides: { rateLimit: { max: MAX, windowMs: 1500 } } });
});
afterAll(() => server.close());

const get = (path: string, token?: string) => fetch(server.url + path, { headers: token ? bearer(token) : {} });

describe('rate limiting per token', () => {
  it('allows max requests per window per token, then answers 429 E_RATE_LIMITED with retry-after', async () => {
    for (let i = 0; i < MAX; i++) expect((await get('/v1/stats', ADMIN_TOKEN)).status).toBe(200);
    const refused = await get('/v1/stats', ADMIN_TOKEN);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'E_RATE_LIMITED',
      message: expect.stringMatching(/at most 5/),
    });
    // Another token is counted apart, and so are the probes (no token, not counted at all).
    expect((await get('/v1/stats', ORDERS_TOKEN)).status).toBe(200);
    for (let i = 0; i < MAX * 2; i++) expect((await get('/health')).status).toBe(200);
    // The seed endpoints are limited too, and keep the 429.
    const mykit = await get('/get/orders.x', ADMIN_TOKEN);
    expect(mykit.status).toBe(429);
    expect(((await mykit.json()) as { message: string }).message).toMatch(/^E_RATE_LIMITED/);
    // The window passes: the token is served again.
    await waitFor(
      async () => (await get('/v1/stats', ADMIN_TOKEN)).status === 200,
      'the rate-limit window to pass',
      5000,
    );
  });

  it('counts a wrong token as nothing: it is refused by auth (401) before it reaches the limiter', async () => {
    for (let i = 0; i < MAX * 2; i++) expect((await get('/v1/stats', 'wrong-token-but-long-enough')).status).toBe(401);
    expect((await get('/v1/stats', ORDERS_TOKEN)).status).toBe(200);
  });
});

describe('rate limiting with auth off', () => {
  it('counts per client IP', async () => {
    const open = await (
      await import('./support/secure-server.js')
    ).startSecureServer(7605, { overrides: { auth: { tokens: [] }, rateLimit: { max: 3, windowMs: 60_000 } } });
    try {
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await fetch(`${open.url}/v1/stats`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await open.close();
    }
  });
});

describe('rate-limit and token-name configuration', () => {
  it('reads DELAYQ_RATE_LIMIT_* from the environment, is off by default, and refuses nonsense with E_CONFIG', () => {
    expect(loadConfig({ env: {} }).rateLimit).toEqual({ max: 0, windowMs: 60_000 });
    expect(loadConfig({ env: { DELAYQ_RATE_LIMIT_MAX: '50', DELAYQ_RATE_LIMIT_WINDOW_MS: '1000' } }).rateLimit).toEqual(
      { max: 50, windowMs: 1000 },
    );
    expect(() => loadConfig({ env: { DELAYQ_RATE_LIMIT_MAX: '-1' } })).toThrow(
      expect.objectContaining({ code: 'E_CONFIG', field: 'rateLimit.max' }),
    );
    const named = loadConfig({ env: { DELAYQ_AUTH_TOKENS: '[{"token":"aaaaaaaaaaaaaaaa1","name":"shop-api"}]' } });
    expect(named.auth.tokens).toEqual([{ token: 'aaaaaaaaaaaaaaaa1', name: 'shop-api' }]);
    // A name is logged: it may not carry spaces, newlines or JSON-breaking characters.
    expect(() =>
      loadConfig({ env: { DELAYQ_AUTH_TOKENS: '[{"token":"aaaaaaaaaaaaaaaa1","name":"a b\\n"}]' } }),
    ).toThrow(expect.objectContaining({ code: 'E_CONFIG' }));
  });
});
