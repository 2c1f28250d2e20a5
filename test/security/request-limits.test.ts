import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_MAX_DEPTH } from '../../src/core/job-input.js';
import { ADMIN_TOKEN, bearer, startSecureServer, type SecureServer } from './support/secure-server.js';

/** Request size limits: body, job body, batch and reserve caps, nesting, headers — each refused with a code. */
let server: SecureServer;
const BODY_LIMIT = 16 * 1024;
const JOB_BODY_MAX = 4 * 1024;

beforeAll(async () => {
  server = await startSecureServer(7603, {
    overrides: { http: { bodyLimitBytes: BODY_LIMIT }, jobs: { bodyMaxBytes: JOB_BODY_MAX } },
  });
});
afterAll(() => server.close());

async function post(path: string, body: string) {
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { error: { code: string; field?: string; message: string } },
  };
}

/** Sends raw bytes and returns the status line and body of the answer. */
function raw(bytes: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: 7603 });
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
        body: text.slice(text.indexOf('\r\n\r\n') + 4),
      });
    });
    socket.on('error', reject);
    socket.end(bytes);
  });
}

describe('request size limits', () => {
  it('refuses a request body over http.bodyLimitBytes with 413 E_BODY_TOO_LARGE, before it is parsed', async () => {
    const answer = await post('/v1/jobs', JSON.stringify({ topic: 'limits.a', body: 'x'.repeat(BODY_LIMIT) }));
    expect(answer.status).toBe(413);
    expect(answer.body.error).toMatchObject({ code: 'E_BODY_TOO_LARGE', field: 'body' });
    // Also when the client lies about the length and streams more (chunked, no Content-Length).
    const chunked = await raw(
      `POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `${(BODY_LIMIT + 100).toString(16)}\r\n${'{'.padEnd(BODY_LIMIT + 100, ' ')}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
  });

  it('refuses a job body over jobs.bodyMaxBytes with 413, and a body nested too deep with 400', async () => {
    const big = await post('/v1/jobs', JSON.stringify({ topic: 'limits.a', body: 'x'.repeat(JOB_BODY_MAX) }));
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'E_BODY_TOO_LARGE', field: 'body' });
    const depth = BODY_MAX_DEPTH + 1;
    const deep = await post('/v1/jobs', `{"topic":"limits.a","body":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'body' });
    // Far deeper than any stack: refused the same way, never a 500.
    const hostile = await post('/v1/jobs', `{"topic":"limits.a","body":${'['.repeat(6000)}${']'.repeat(6000)}}`);
    expect(hostile.status).toBe(400);
    const ok = await post(
      '/v1/jobs',
      `{"topic":"limits.a","body":${'['.repeat(BODY_MAX_DEPTH)}${']'.repeat(BODY_MAX_DEPTH)}}`,
    );
    expect(ok.status).toBe(201);
  });

  it('caps batches at 1000 jobs, reserve at 100 jobs and 60 s of waiting, redrive at 1000 ids', async () => {
    const batch = await post(
      '/v1/jobs/batch',
      JSON.stringify({ jobs: Array.from({ length: 1001 }, () => ({ topic: 'a' })) }),
    );
    expect(batch.status).toBe(400);
    expect(batch.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'jobs' });
    for (const [body, field] of [
      [{ topics: ['a'], count: 101 }, 'count'],
      [{ topics: ['a'], waitMs: 60_001 }, 'waitMs'],
      [{ topics: Array.from({ length: 101 }, (_, i) => `t${i}`) }, 'topics'],
    ] as const) {
      const answer = await post('/v1/reserve', JSON.stringify(body));
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field });
    }
    const redrive = await post(
      '/v1/dead/redrive',
      JSON.stringify({ ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) }),
    );
    expect(redrive.status).toBe(400);
  });

  it('answers headers over Node’s limit and unparsable requests in the API envelope, then closes', async () => {
    const huge = await raw(`GET /v1/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body).error).toMatchObject({ code: 'E_BODY_TOO_LARGE', field: 'headers' });
    const garbage = await raw('GARBAGE / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body).error.code).toBe('E_VALIDATION');
    const badUrl = await fetch(`${server.url}/v1/jobs/%ZZ`, { headers: bearer(ADMIN_TOKEN) });
    expect(badUrl.status).toBe(400);
    expect(((await badUrl.json()) as { error: { code: string } }).error.code).toBe('E_VALIDATION');
  });
});
