import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors.js';
import { HTTP_STATUS } from '../../src/server/error-handler.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ overrides: { http: { bodyLimitBytes: 64 * 1024 }, jobs: { bodyMaxBytes: 1024 } } });
});
afterAll(async () => server.close());

const post = (path: string, json: unknown) => http(server.url, 'POST', path, { json });

async function expectError(
  answer: Promise<{ status: number; body: any }>,
  status: number,
  code: string,
  field?: string,
): Promise<void> {
  const { status: actual, body } = await answer;
  expect({ status: actual, code: body?.error?.code, field: body?.error?.field }).toEqual({ status, code, field });
  expect(typeof body.error.message).toBe('string');
}

describe('error answers over raw HTTP', () => {
  it('maps every catalogue code to a status, client errors to 4xx', () => {
    for (const code of ERROR_CODES) expect(HTTP_STATUS[code]).toBeGreaterThanOrEqual(400);
    expect(HTTP_STATUS.E_VALIDATION).toBe(400);
    expect(HTTP_STATUS.E_BODY_TOO_LARGE).toBe(413);
    expect(HTTP_STATUS.E_RATE_LIMITED).toBe(429);
    expect(HTTP_STATUS.E_STORE_UNAVAILABLE).toBe(503);
  });

  it('malformed JSON → 400 E_VALIDATION on body', async () => {
    await expectError(http(server.url, 'POST', '/v1/jobs', { raw: '{"topic": "a",' }), 400, 'E_VALIDATION', 'body');
    await expectError(http(server.url, 'POST', '/v1/jobs', { raw: '' }), 400, 'E_VALIDATION', 'body');
  });

  it('a body that is not JSON → 400 naming content-type', async () => {
    await expectError(
      http(server.url, 'POST', '/v1/jobs', {
        raw: 'topic=a',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      'E_VALIDATION',
      'content-type',
    );
  });

  it('wrong types → 400 naming the field (no silent coercion)', async () => {
    await expectError(post('/v1/jobs', { topic: 5 }), 400, 'E_VALIDATION', 'topic');
    await expectError(post('/v1/jobs', { topic: 'a', priority: 'high' }), 400, 'E_VALIDATION', 'priority');
    await expectError(post('/v1/jobs', { topic: 'a', priority: '5' }), 400, 'E_VALIDATION', 'priority');
    await expectError(post('/v1/jobs', { topic: 'a', delayMs: true }), 400, 'E_VALIDATION', 'delayMs');
    await expectError(post('/v1/jobs', ['a']), 400, 'E_VALIDATION', 'body');
    await expectError(post('/v1/reserve', { topics: 'a' }), 400, 'E_VALIDATION', 'topics');
    await expectError(post('/v1/reserve', { topics: ['a'], count: '2' }), 400, 'E_VALIDATION', 'count');
    await expectError(http(server.url, 'GET', '/v1/jobs?limit=many'), 400, 'E_VALIDATION', 'limit');
    const state = await http(server.url, 'GET', '/v1/jobs?state=waiting');
    expect(state.body.error).toMatchObject({
      field: 'state',
      message: expect.stringContaining('must be one of "delayed", "ready"'),
    });
  });

  it('missing and unknown fields → 400 naming the field', async () => {
    await expectError(post('/v1/jobs', {}), 400, 'E_VALIDATION', 'topic');
    await expectError(post('/v1/jobs', { topic: 'a', delay: 5 }), 400, 'E_VALIDATION', 'delay');
    await expectError(
      post('/v1/jobs', { topic: 'a', retry: { maxAttempts: 2, tries: 3 } }),
      400,
      'E_VALIDATION',
      'retry.tries',
    );
    await expectError(
      post('/v1/jobs/batch', { jobs: [{ topic: 'a' }, { topic: 'b', colour: 'red' }] }),
      400,
      'E_VALIDATION',
      'jobs[1].colour',
    );
    await expectError(post('/v1/jobs/x/finish', {}), 400, 'E_VALIDATION', 'token');
    await expectError(http(server.url, 'GET', '/v1/jobs?topik=a'), 400, 'E_VALIDATION', 'topik');
  });

  it('bad topic names → 400 on topic', async () => {
    for (const topic of ['', 'a b', '-leading', 'ünïcode', 'a/b', 'x'.repeat(201)]) {
      await expectError(post('/v1/jobs', { topic }), 400, 'E_VALIDATION', 'topic');
    }
    await expectError(post('/v1/reserve', { topics: ['ok', 'not ok'] }), 400, 'E_VALIDATION', 'topics[1]');
    expect((await post('/v1/jobs', { topic: 'a b' })).body.error.message).toMatch(
      /^topic: must be 1–200 characters of letters, digits/,
    );
    await expectError(
      post('/v1/jobs/batch', { jobs: [{ topic: 'ok' }, { topic: 'no way' }] }),
      400,
      'E_VALIDATION',
      'jobs[1].topic',
    );
    expect((await post('/v1/jobs', { topic: 'A-z_0.9:x' })).status).toBe(201);
    expect((await post('/v1/jobs', { topic: 'x'.repeat(200) })).status).toBe(201);
  });

  it('huge, negative and unreadable delays → 400 naming the field', async () => {
    await expectError(post('/v1/jobs', { topic: 'a', delayMs: -1 }), 400, 'E_VALIDATION', 'delayMs');
    await expectError(post('/v1/jobs', { topic: 'a', delayMs: 1e15 }), 400, 'E_VALIDATION', 'delayMs');
    await expectError(post('/v1/jobs', { topic: 'a', delayMs: '11000d' }), 400, 'E_VALIDATION', 'delayMs');
    await expectError(post('/v1/jobs', { topic: 'a', delayMs: 'soon' }), 400, 'E_VALIDATION', 'delayMs');
    await expectError(
      post('/v1/jobs', { topic: 'a', runAt: Date.now() + 20 * 366 * 86_400_000 }),
      400,
      'E_VALIDATION',
      'runAt',
    );
    await expectError(post('/v1/jobs', { topic: 'a', runAt: 'tomorrow' }), 400, 'E_VALIDATION', 'runAt');
    await expectError(post('/v1/jobs', { topic: 'a', delayMs: 5, runAt: Date.now() }), 400, 'E_VALIDATION', 'runAt');
    await expectError(post('/v1/reserve', { topics: ['a'], waitMs: 120_000 }), 400, 'E_VALIDATION', 'waitMs');
    await expectError(post('/v1/reserve', { topics: ['a'], count: 101 }), 400, 'E_VALIDATION', 'count');
    expect((await post('/v1/jobs', { topic: 'a', delayMs: '3650d' })).status).toBe(201);
  });

  it('oversized request → 413 E_BODY_TOO_LARGE; oversized job body → 413 on body', async () => {
    await expectError(post('/v1/jobs', { topic: 'a', body: 'x'.repeat(100 * 1024) }), 413, 'E_BODY_TOO_LARGE', 'body');
    await expectError(post('/v1/jobs', { topic: 'a', body: 'x'.repeat(2000) }), 413, 'E_BODY_TOO_LARGE', 'body');
  });

  it('unknown jobs and routes → 404; bad ids in the path → 400 on id', async () => {
    await expectError(http(server.url, 'GET', '/v1/jobs/no-such-job'), 404, 'E_NOT_FOUND');
    await expectError(post('/v1/jobs/no-such-job/finish', { token: 'abc' }), 404, 'E_NOT_FOUND');
    await expectError(http(server.url, 'GET', '/v1/jobs/has%20space'), 400, 'E_VALIDATION', 'id');
    await expectError(http(server.url, 'GET', '/v2/anything'), 404, 'E_NOT_FOUND');
  });

  it('stale token → 409 E_TOKEN_MISMATCH; wrong state → 409 E_WRONG_STATE', async () => {
    await post('/v1/jobs', { topic: 'stale', id: 'stale-1' });
    const first = (await post('/v1/reserve', { topics: ['stale'] })).body.reservations[0];
    expect((await post('/v1/jobs/stale-1/release', { token: first.token })).status).toBe(200);
    const second = (await post('/v1/reserve', { topics: ['stale'] })).body.reservations[0];
    expect(second.token).not.toBe(first.token);
    await expectError(post('/v1/jobs/stale-1/finish', { token: first.token }), 409, 'E_TOKEN_MISMATCH');
    await expectError(post('/v1/jobs/stale-1/touch', { token: first.token }), 409, 'E_TOKEN_MISMATCH');
    expect((await post('/v1/jobs/stale-1/finish', { token: second.token })).body.job.state).toBe('finished');
    await post('/v1/jobs', { topic: 'stale', id: 'stale-2', delayMs: '1h' });
    await expectError(post('/v1/jobs/stale-2/finish', { token: 'whatever' }), 409, 'E_WRONG_STATE');
  });

  it('answers arbitrary JSON on every POST route with a 2xx or 4xx, never 5xx, and keeps serving', async () => {
    const routes = [
      '/v1/jobs',
      '/v1/jobs/batch',
      '/v1/reserve',
      '/v1/jobs/j1/finish',
      '/v1/jobs/j1/fail',
      '/v1/jobs/j1/touch',
      '/v1/jobs/j1/cancel',
      '/v1/jobs/j1/reschedule',
      '/v1/dead/redrive',
      '/v1/purge',
      '/push',
      '/youzan',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.jsonValue({ maxDepth: 3 }), async (route, value) => {
        const { status } = await post(route, value);
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
    const health = await http(server.url, 'GET', '/health');
    expect(health).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await post('/v1/jobs', { topic: 'still-works', body: { ok: true } })).status).toBe(201);
  });
});
