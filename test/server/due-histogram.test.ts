/** GET /v1/stats/due over HTTP: counts against pushed jobs, defaults, field-named 400s, topic scope, OpenAPI. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

const ADMIN = 'admin-token-0123456789';
const SHOP = 'shop-token-0123456789ab';

describe('GET /v1/stats/due', () => {
  let server: TestServer;
  const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    server = await startServer({
      overrides: { auth: { tokens: [{ token: ADMIN }, { token: SHOP, topics: ['shop.'] }] } },
    });
  });
  afterAll(() => server.close());

  it('counts the delayed jobs pushed, per minute of the next hour by default', async () => {
    const from = Date.now();
    for (const [i, delayMs] of [90_000, 100_000, 5 * 60_000 + 10_000, 7_200_000].entries()) {
      const runAt = from + delayMs;
      expect(
        (
          await http(server.url, 'POST', '/v1/jobs', {
            json: { id: `h${i}`, topic: 'shop.mail', runAt },
            ...auth(ADMIN),
          })
        ).status,
      ).toBe(201);
    }
    const r = await http(server.url, 'GET', `/v1/stats/due?topic=shop.mail&from=${from}`, auth(SHOP));
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ topic: 'shop.mail', from, to: from + 3_600_000, bucketMs: 60_000, total: 3 });
    expect(r.body.buckets).toHaveLength(60);
    expect(r.body.buckets[1]).toEqual({ at: from + 60_000, count: 2 });
    expect(r.body.buckets[5].count).toBe(1);
    const day = await http(
      server.url,
      'GET',
      `/v1/stats/due?from=${from}&to=${from + 86_400_000}&bucketMs=3600000`,
      auth(ADMIN),
    );
    expect(day.body.topic).toBeNull();
    expect(day.body.buckets.map((b: { count: number }) => b.count).slice(0, 3)).toEqual([3, 0, 1]);
  });

  it('refuses bad ranges naming the field; all topics of a topic-limited token are its own topics', async () => {
    const bad = await http(server.url, 'GET', '/v1/stats/due?from=2000&to=1000', auth(ADMIN));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'to' });
    const many = await http(server.url, 'GET', '/v1/stats/due?from=0&to=100000000&bucketMs=1000', auth(ADMIN));
    expect(many.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'bucketMs' });
    const narrow = await http(server.url, 'GET', '/v1/stats/due?bucketMs=10', auth(ADMIN));
    expect(narrow.status).toBe(400);
    expect(narrow.body.error.field).toBe('bucketMs');
    const from = Date.now();
    const runAt = from + 120_000;
    for (const topic of ['bank.x', 'shop.scope'])
      await http(server.url, 'POST', '/v1/jobs', { json: { topic, runAt }, ...auth(ADMIN) });
    const range = `from=${from}&to=${from + 600_000}&bucketMs=60000`;
    const shopAll = await http(server.url, 'GET', `/v1/stats/due?${range}`, auth(SHOP));
    const adminAll = await http(server.url, 'GET', `/v1/stats/due?${range}`, auth(ADMIN));
    const shopOnly = await Promise.all(
      ['shop.mail', 'shop.scope'].map((t) => http(server.url, 'GET', `/v1/stats/due?${range}&topic=${t}`, auth(SHOP))),
    );
    expect(shopAll.status).toBe(200);
    expect(shopAll.body.topic).toBeNull();
    expect(shopAll.body.total).toBe(shopOnly[0]!.body.total + shopOnly[1]!.body.total);
    expect(adminAll.body.total).toBe(shopAll.body.total + 1); // bank.x's job is not the shop token's
    expect((await http(server.url, 'GET', '/v1/stats/due?topic=bank.x', auth(SHOP))).status).toBe(403);
    expect((await http(server.url, 'GET', '/v1/stats/due')).status).toBe(401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).body;
    expect(doc.paths['/v1/stats/due'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'bucketMs',
      'from',
      'to',
      'topic',
    ]);
  });
});
