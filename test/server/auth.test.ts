import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

const ADMIN = 'admin-token-0123456789';
const ORDERS = 'orders-token-0123456789';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    overrides: { auth: { tokens: [{ token: ADMIN }, { token: ORDERS, topics: ['orders.'] }] } },
  });
});
afterAll(async () => server.close());

const as = (token: string | undefined) => (method: string, path: string, json?: unknown) =>
  http(server.url, method, path, {
    ...(json === undefined ? {} : { json }),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe('bearer-token authentication', () => {
  it('leaves health, readiness and the API docs open', async () => {
    expect((await as(undefined)('GET', '/health')).status).toBe(200);
    expect((await as(undefined)('GET', '/ready')).status).toBe(200);
    expect((await as(undefined)('GET', '/openapi.json')).status).toBe(200);
  });

  it('refuses a missing or wrong token with 401 E_UNAUTHORIZED, on REST and seed endpoints', async () => {
    const missing = await as(undefined)('POST', '/v1/jobs', { topic: 'orders.eu' });
    expect(missing).toMatchObject({ status: 401, body: { error: { code: 'E_UNAUTHORIZED', field: 'authorization' } } });
    const wrong = await as('not-a-token-at-all-xx')('GET', '/v1/stats');
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'E_UNAUTHORIZED' } } });
    const basic = await http(server.url, 'GET', '/v1/stats', { headers: { authorization: `Basic ${ADMIN}` } });
    expect(basic.status).toBe(401);
    const mykit = await as(undefined)('POST', '/push', { topic: 'orders.eu' });
    // Access refusals keep their HTTP status on the seed endpoints too, in `code` as well (src/server/compat-status.ts).
    expect(mykit).toMatchObject({ status: 401, body: { success: false, code: 401 } });
    expect(mykit.body.message).toMatch(/^E_UNAUTHORIZED/);
  });

  it('limits a scoped token to its topic prefixes', async () => {
    const orders = as(ORDERS);
    expect((await orders('POST', '/v1/jobs', { topic: 'orders.eu', id: 'o-1' })).status).toBe(201);
    expect(await orders('POST', '/v1/jobs', { topic: 'billing', id: 'b-1' })).toMatchObject({
      status: 403,
      body: { error: { code: 'E_FORBIDDEN', field: 'topic' } },
    });
    expect(
      await orders('POST', '/v1/jobs/batch', { jobs: [{ topic: 'orders.us' }, { topic: 'billing' }] }),
    ).toMatchObject({
      status: 403,
      body: { error: { code: 'E_FORBIDDEN', field: 'jobs[1].topic' } },
    });
    expect(await orders('POST', '/v1/reserve', { topics: ['orders.eu', 'billing'] })).toMatchObject({
      status: 403,
      body: { error: { code: 'E_FORBIDDEN', field: 'topics[1]' } },
    });

    expect((await as(ADMIN)('POST', '/v1/jobs', { topic: 'billing', id: 'b-2' })).status).toBe(201);
    // Another topic's job is answered as an id no job has; a list without a topic shows its own topics only.
    expect((await orders('GET', '/v1/jobs/b-2')).status).toBe(404);
    expect((await orders('POST', '/v1/jobs/b-2/cancel', {})).status).toBe(404);
    expect((await orders('GET', '/v1/jobs')).body.jobs.map((j: { id: string }) => j.id)).toEqual(['o-1']);
    expect((await orders('GET', '/v1/jobs?topic=orders.eu')).status).toBe(200);

    const stats = await orders('GET', '/v1/stats');
    expect(stats.body.topics.map((t: { topic: string }) => t.topic)).toEqual(['orders.eu']);
    const adminStats = await as(ADMIN)('GET', '/v1/stats');
    expect(adminStats.body.topics.map((t: { topic: string }) => t.topic).sort()).toEqual(['billing', 'orders.eu']);
  });

  it('lets the SDK carry the token', async () => {
    const client = new DelayqClient({ url: server.url, token: ORDERS });
    const { job } = await client.push({ topic: 'orders.sdk', body: 1 });
    expect((await client.get(job.id)).topic).toBe('orders.sdk');
    await expect(client.push({ topic: 'billing' })).rejects.toMatchObject({ code: 'E_FORBIDDEN' });
    await expect(new DelayqClient({ url: server.url }).stats()).rejects.toMatchObject({ code: 'E_UNAUTHORIZED' });
  });
});
