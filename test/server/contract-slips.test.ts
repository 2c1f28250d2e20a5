import { afterAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits.js';
import { http, startServer } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';

type Operation = { security?: unknown; requestBody?: { required?: boolean; content: Record<string, { schema: any }> } };

const PUBLIC = ['/health', '/ready', '/openapi.json', '/docs'];

describe('small contract slips: answers say what their schemas say', () => {
  it('a JSON body sent as text/plain is refused naming content-type, as the catalogue says', async () => {
    const server = await startServer();
    try {
      for (const contentType of ['text/plain', 'text/plain; charset=utf-8']) {
        for (const [path, body] of [
          ['/v1/jobs', '{"topic":"a"}'],
          ['/v1/reserve', '{"topics":["a"]}'],
        ] as const) {
          const res = await http(server.url, 'POST', path, { raw: body, headers: { 'content-type': contentType } });
          expect(res.status, `${contentType} ${path}`).toBe(400);
          expect(res.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'content-type' });
        }
      }
      // cancel with no body at all (curl -X POST) still works
      const pushed = await http(server.url, 'POST', '/v1/jobs', { json: { topic: 'a', delayMs: 60_000 } });
      expect((await http(server.url, 'POST', `/v1/jobs/${pushed.body.job.id}/cancel`)).body.job.state).toBe(
        'cancelled',
      );
    } finally {
      await server.close();
    }
  });

  for (const tokens of [[], [{ token: 'admin-secret-xxxxxxxx' }]]) {
    it(`the OpenAPI document puts the bearer scheme on every operation but the public ones (${tokens.length ? 'with' : 'without'} tokens)`, async () => {
      const server = await startServer({ overrides: { auth: { tokens } } });
      try {
        const doc = (await http(server.url, 'GET', '/openapi.json')).body;
        expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
        expect(doc.security).toBeUndefined();
        const seen: string[] = [];
        for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
          for (const [method, operation] of Object.entries(item)) {
            seen.push(`${method.toUpperCase()} ${path}`);
            if (PUBLIC.some((p) => path === p || path.startsWith(`${p}/`)))
              expect(operation.security, `${method} ${path}`).toBeUndefined();
            else expect(operation.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
          }
        }
        expect(seen).toEqual(
          expect.arrayContaining(['POST /v1/jobs', 'GET /ready', 'GET /health', 'POST /v1/restore']),
        );
        // the public docs page answers without a token (swagger-ui through @fastify/static)
        const docs = await fetch(`${server.url}/docs/static/index.html`);
        expect(docs.status).toBe(200);
        expect(await docs.text()).toContain('swagger');
        // and it is true: with tokens, an operation that lists it refuses a request without one
        if (tokens.length) expect((await http(server.url, 'GET', '/v1/stats')).status).toBe(401);
      } finally {
        await server.close();
      }
    });
  }

  it('the schema states the id rules ("" generates one) and that cancel needs no body', async () => {
    const server = await startServer();
    try {
      const doc = (await http(server.url, 'GET', '/openapi.json')).body;
      const push = doc.paths['/v1/jobs'].post as Operation;
      const id = push.requestBody!.content['application/json']!.schema.properties.id;
      expect(id.pattern).toBe(LIMITS.pushIdPattern);
      expect(new RegExp(id.pattern).test('')).toBe(true);
      expect(new RegExp(id.pattern).test('order-A1:x@y+z=1')).toBe(true);
      expect(new RegExp(id.pattern).test('a b')).toBe(false);
      expect(id.description).toContain('""');
      expect((doc.paths['/v1/jobs/{id}/cancel'].post as Operation).requestBody?.required).toBe(false);
      expect((doc.paths['/v1/jobs/{id}/reschedule'].post as Operation).requestBody?.required).toBe(true);
      // storeResets (how often the store came back empty) is in the schema of both answers that carry it
      const ok = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema;
      expect(ok('/v1/stats').properties.storeResets).toMatchObject({ type: 'integer', minimum: 0 });
      expect(ok('/v1/stats').required).toContain('storeResets');
      expect(ok('/ready').properties.storeResets).toMatchObject({ type: 'integer' });

      const generated = await http(server.url, 'POST', '/v1/jobs', { json: { id: '', topic: 'a' } });
      expect(generated.status).toBe(201);
      expect(generated.body.job.id).toMatch(new RegExp(LIMITS.idPattern));
      const refused = await http(server.url, 'POST', '/v1/jobs', { json: { id: 'a b', topic: 'a' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'id' });
    } finally {
      await server.close();
    }
  });

  const prefixes = prefixPool('slips');
  afterAll(() => prefixes.sweep());
  for (const store of ['sqlite', 'redis'] as const) {
    it(`past-due jobs keep their given runAt and are served earliest first (${store})`, async () => {
      const overrides =
        store === 'redis'
          ? {
              store: { kind: 'redis' },
              redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), partitions: 2 },
            }
          : {};
      const server = await startServer({ overrides });
      try {
        const now = Date.now();
        // pushed in an order that is neither their due order nor their id order
        const jobs = [
          { id: 'a-last', runAt: now - 1_000 },
          { id: 'b-first', runAt: now - 3_000 },
          { id: 'c-second', runAt: now - 2_000 },
        ];
        for (const job of jobs) {
          const res = await http(server.url, 'POST', '/v1/jobs', { json: { topic: 'past', ...job } });
          expect(res.body.job).toMatchObject({ state: 'ready', runAt: job.runAt });
        }
        const batch = await http(server.url, 'POST', '/v1/jobs/batch', {
          json: {
            jobs: [
              { id: 'e-later', topic: 'past2', runAt: now - 500 },
              { id: 'd-sooner', topic: 'past2', runAt: new Date(now - 60_000).toISOString() },
            ],
          },
        });
        expect(batch.body.results.map((r: { job: { runAt: number } }) => r.job.runAt)).toEqual([
          now - 500,
          now - 60_000,
        ]);
        const taken = await http(server.url, 'POST', '/v1/reserve', { json: { topics: ['past', 'past2'], count: 5 } });
        expect(taken.body.reservations.map((r: { job: { id: string } }) => r.job.id)).toEqual([
          'd-sooner',
          'b-first',
          'c-second',
          'a-last',
          'e-later',
        ]);
      } finally {
        await server.close();
      }
    });
  }
});
