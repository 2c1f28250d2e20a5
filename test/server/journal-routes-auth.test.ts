import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

/**
 * The journal's operator routes span every topic: a topic-scoped token is refused; without a journal the
 * actions answer 409 and the status says there is none.
 */
describe('journal routes: authorization and absence of a journal', () => {
  let server: TestServer;
  const admin = { authorization: 'Bearer admin-token-0123456789' };
  const scoped = { authorization: 'Bearer orders-token-0123456789' };
  const routes: [string, string, unknown][] = [
    ['POST', '/v1/restore', { expire: true }],
    ['POST', '/v1/jobs/some-id/restore', {}],
    ['POST', '/v1/clear-all', { confirm: 'clear-all' }],
  ];

  beforeAll(async () => {
    server = await startServer({
      overrides: {
        auth: {
          tokens: [{ token: 'admin-token-0123456789' }, { token: 'orders-token-0123456789', topics: ['orders.'] }],
        },
      },
    });
  });
  afterAll(() => server.close());

  it('GET /v1/journal: 401 without a token, 403 for a topic-scoped token, {"available": false} without a journal', async () => {
    expect((await http(server.url, 'GET', '/v1/journal')).status).toBe(401);
    expect((await http(server.url, 'GET', '/v1/journal', { headers: scoped })).body.error.code).toBe('E_FORBIDDEN');
    expect(await http(server.url, 'GET', '/v1/journal', { headers: admin })).toEqual({
      status: 200,
      body: { available: false },
    });
  });

  it.each(routes)(
    '%s %s: 401 without a token, 403 for a topic-scoped token, 409 E_CONFLICT without a journal',
    async (method, path, json) => {
      expect((await http(server.url, method, path, { json })).status).toBe(401);
      const forbidden = await http(server.url, method, path, { json, headers: scoped });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('E_FORBIDDEN');
      const noJournal = await http(server.url, method, path, { json, headers: admin });
      expect(noJournal.status).toBe(409);
      expect(noJournal.body.error).toMatchObject({ code: 'E_CONFLICT', message: expect.stringMatching(/journal/) });
    },
  );
});
