import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { prefixPool } from '../helpers/redis-prefix.js';
import { startServer, type TestServer } from '../helpers/http-server.js';
import type { Reservation } from '../../src/core/job.js';

/** Concurrent single finishes (one per request, as a plain consumer sends them) share store calls. */
const prefixes = prefixPool('single-finish');
afterAll(() => prefixes.sweep());

const stores: [string, () => Record<string, unknown>][] = [
  ['SQLite', () => ({})],
  [
    'Redis',
    () => ({
      store: { kind: 'redis' },
      redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), partitions: 2 },
    }),
  ],
];

/** The service's store calls, by operation (the delayq_store_call_seconds metric's source). */
function recordCalls(server: TestServer): { readonly ops: string[]; stop(): void } {
  const ops: string[] = [];
  const heard = (c: { operation: string }) => ops.push(c.operation);
  server.service.events.on('storeCall', heard);
  return { ops, stop: () => server.service.events.off('storeCall', heard) };
}

async function reserveAll(server: TestServer, topic: string, n: number): Promise<Reservation[]> {
  await server.service.pushBatch(Array.from({ length: n }, (_, i) => ({ topic, id: `${topic}-${i}` })));
  const got: Reservation[] = [];
  while (got.length < n) got.push(...(await server.service.reserve({ topics: [topic], count: n - got.length })));
  return got;
}

function post(agent: http.Agent, url: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url + path,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe.each(stores)('single finishes grouped per turn (%s)', (_name, overrides) => {
  let server: TestServer;
  afterEach(() => server.close());

  it('finishes the single finishes of one turn in one store call, each caller its own answer', async () => {
    server = await startServer({ overrides: overrides() });
    const { service } = server;
    const reservations = await reserveAll(server, 'work', 100);
    const calls = recordCalls(server);
    const [stale, ...rest] = reservations;
    const settled = await Promise.allSettled([
      ...rest.map((r) => service.finish(r.job.id, r.token)),
      service.finish(stale!.job.id, 'not-its-token'),
      service.finish('no-such-job', 'any'),
      service.finish(rest[0]!.job.id, rest[0]!.token), // a repeat with its token answers the finished job
    ]);
    calls.stop();
    expect(calls.ops.filter((op) => op === 'finishMany')).toHaveLength(1);
    expect(calls.ops).not.toContain('finish');
    for (const [i, r] of rest.entries()) {
      expect(settled[i]).toMatchObject({ status: 'fulfilled', value: { id: r.job.id, state: 'finished' } });
    }
    expect(settled[99]).toMatchObject({ status: 'rejected', reason: { code: 'E_TOKEN_MISMATCH' } });
    expect(settled[100]).toMatchObject({ status: 'rejected', reason: { code: 'E_NOT_FOUND' } });
    expect(settled[101]).toMatchObject({ status: 'fulfilled', value: { id: rest[0]!.job.id, state: 'finished' } });
    expect((await service.get(stale!.job.id)).state).toBe('reserved');
  });

  it('answers 100 concurrent finish requests each its own way, in fewer store calls than requests', async () => {
    server = await startServer({ overrides: overrides() });
    const { url } = server;
    const reservations = await reserveAll(server, 'http', 100);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 100 });
    // Open the keep-alive connections first, as a consumer in its steady state holds them.
    await Promise.all(Array.from({ length: 100 }, () => post(agent, url, '/v1/jobs', { topic: 'warm-up' })));
    const calls = recordCalls(server);
    const answers = await Promise.all(
      reservations.map((r, i) =>
        post(agent, url, `/v1/jobs/${r.job.id}/finish`, { token: i === 5 ? 'stale' : r.token }),
      ),
    );
    calls.stop();
    agent.destroy();
    expect(answers[5]!.status).toBe(409);
    expect(answers[5]!.body.error).toMatchObject({ code: 'E_TOKEN_MISMATCH' });
    for (const [i, a] of answers.entries()) {
      if (i === 5) continue;
      expect(a.status).toBe(200);
      expect(a.body.job).toMatchObject({ id: reservations[i]!.job.id, state: 'finished' });
    }
    const storeFinishes = calls.ops.filter((op) => op === 'finishMany').length;
    expect(storeFinishes).toBeGreaterThan(0);
    expect(storeFinishes).toBeLessThan(50);
  });
});
