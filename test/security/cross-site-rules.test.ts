/**
 * The rules of the cross-site guard (src/server/cross-site.ts, docs/security.md) request by request, through
 * Fastify's inject on the real app: which browser marks refuse a state change, what passes (programs, the
 * server's own origin, http.allowedOrigins), the Host check of a loopback server and http.allowedHosts.
 * test/security/cross-site.test.ts proves the same in Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/create-service.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import type { DelayqService } from '../../src/service/service.js';

const opened: { app: DelayqApp; service: DelayqService }[] = [];
afterAll(async () => {
  for (const { app, service } of opened) {
    await app.close();
    await service.close();
  }
});

async function appWith(http: Record<string, unknown>): Promise<DelayqApp> {
  const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' }, http } });
  const service = createService(config);
  await service.start();
  const app = await buildApp(service, config);
  opened.push({ app, service });
  return app;
}

/** Pauses topic `t` (a state change without a body) with these headers; the status. */
async function pause(app: DelayqApp, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const answer = await app.inject({ method: 'POST', url: '/v1/topics/t/pause', headers });
  return { status: answer.statusCode, body: answer.json() };
}

describe('the cross-site guard', () => {
  let app: DelayqApp;
  beforeAll(async () => {
    app = await appWith({ allowedOrigins: ['https://ops.example.com'] });
  });
  const own = { host: '127.0.0.1:7750' };

  it('refuses a state change a browser marks as from another site, or from another origin', async () => {
    for (const headers of [
      { ...own, 'sec-fetch-site': 'cross-site' },
      { ...own, 'sec-fetch-site': 'same-site' },
      { ...own, origin: 'http://127.0.0.1:8080' },
      { ...own, origin: 'https://127.0.0.1:7751' },
      { ...own, origin: 'null' },
      { ...own, origin: 'http://evil.example' },
    ]) {
      const answer = await pause(app, headers);
      expect({ headers, status: answer.status }).toEqual({ headers, status: 403 });
      expect(answer.body.error).toMatchObject({ code: 'E_FORBIDDEN', field: 'origin' });
      expect(answer.body.error.message).toContain('http.allowedOrigins');
    }
  });

  it('lets programs, the server’s own pages and the allowed origins through', async () => {
    for (const headers of [
      own, // curl, the SDKs: no Origin, no Sec-Fetch-Site
      { ...own, origin: 'http://127.0.0.1:7750', 'sec-fetch-site': 'same-origin' },
      { ...own, origin: 'https://127.0.0.1:7750' }, // behind a TLS proxy that keeps Host
      { ...own, 'sec-fetch-site': 'none' }, // typed into the address bar
      { ...own, origin: 'https://ops.example.com', 'sec-fetch-site': 'cross-site' },
    ])
      expect({ headers, status: (await pause(app, headers)).status }).toEqual({ headers, status: 200 });
  });

  it('leaves reads alone, and guards the seed GETs that change state', async () => {
    const cross = { ...own, 'sec-fetch-site': 'cross-site' };
    expect((await app.inject({ method: 'GET', url: '/v1/stats', headers: cross })).statusCode).toBe(200);
    for (const url of ['/get/t', '/finish?jobId=x', '/delete?jobId=x', '/clearAll', '/reStore'])
      expect({ url, status: (await app.inject({ method: 'GET', url, headers: cross })).statusCode }).toEqual({
        url,
        status: 403,
      });
  });

  it('on loopback, answers loopback host names only, and those of http.allowedHosts', async () => {
    for (const host of ['127.0.0.1:7750', 'localhost:7750', '127.0.0.2', '[::1]:7750', 'LOCALHOST'])
      expect({ host, status: (await app.inject({ url: '/v1/stats', headers: { host } })).statusCode }).toEqual({
        host,
        status: 200,
      });
    const rebound = await app.inject({ url: '/v1/stats', headers: { host: 'rebind.example:7750' } });
    expect(rebound.statusCode).toBe(403);
    expect(rebound.json().error).toMatchObject({ code: 'E_FORBIDDEN', field: 'host' });
    expect(rebound.json().error.message).toContain('http.allowedHosts');

    const proxied = await appWith({ allowedHosts: ['delayq.internal'] });
    expect((await proxied.inject({ url: '/v1/stats', headers: { host: 'delayq.internal:443' } })).statusCode).toBe(200);
    expect((await proxied.inject({ url: '/v1/stats', headers: { host: 'other.internal' } })).statusCode).toBe(403);
    const any = await appWith({ allowedHosts: ['*'] });
    expect((await any.inject({ url: '/v1/stats', headers: { host: 'other.internal' } })).statusCode).toBe(200);
    const exposed = await appWith({ host: '0.0.0.0' });
    expect((await exposed.inject({ url: '/v1/stats', headers: { host: 'delayq.example' } })).statusCode).toBe(200);
  });

  it('reads its lists from DELAYQ_HTTP_ALLOWED_ORIGINS and DELAYQ_HTTP_ALLOWED_HOSTS, and refuses a bad origin', () => {
    const config = loadConfig({
      env: {
        DELAYQ_HTTP_ALLOWED_ORIGINS: '["https://ops.example.com"]',
        DELAYQ_HTTP_ALLOWED_HOSTS: '["delayq.internal"]',
      },
    });
    expect(config.http).toMatchObject({
      allowedOrigins: ['https://ops.example.com'],
      allowedHosts: ['delayq.internal'],
    });
    expect(() => loadConfig({ env: {}, overrides: { http: { allowedOrigins: ['ops.example.com/x'] } } })).toThrow(
      /http\.allowedOrigins/,
    );
  });
});
