/**
 * GET and PUT /v1/topics/{topic}/settings and the dispatch rate limit on the embedded store: bad settings
 * name their field and store nothing; a scoped token sets only its topics; jobs beyond the rate stay ready;
 * a long-poll waits for the next token; a reserve over several topics takes from a limited one at most its tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

const ADMIN = 'topic-settings-admin-token-01';
const SCOPED = 'topic-settings-scoped-token-01';

describe('topic settings over HTTP', () => {
  let server: TestServer;
  const api = (method: string, path: string, json?: unknown, token = ADMIN) =>
    http(server.url, method, path, {
      headers: { authorization: `Bearer ${token}` },
      ...(json === undefined ? {} : { json }),
    });
  const push = async (topic: string, n: number) => {
    const jobs = Array.from({ length: n }, (_, i) => ({ topic, body: i }));
    expect((await api('POST', '/v1/jobs/batch', { jobs })).status).toBe(200);
  };
  const reserve = async (topics: string[], count: number, waitMs = 0) => {
    const answer = await api('POST', '/v1/reserve', { topics, count, waitMs, ttrMs: 60_000 });
    expect(answer.status).toBe(200);
    return answer.body.reservations as { job: { topic: string } }[];
  };

  beforeAll(async () => {
    server = await startServer({
      overrides: { auth: { tokens: [{ token: ADMIN }, { token: SCOPED, name: 'billing', topics: ['billing.'] }] } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('keeps the settings put, answers them, and clears a field left out', async () => {
    expect((await api('GET', '/v1/topics/rl.a/settings')).body).toEqual({ topic: 'rl.a' });
    const put = await api('PUT', '/v1/topics/rl.a/settings', { rateLimit: { perSecond: 2.5, burst: 4 } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ topic: 'rl.a', rateLimit: { perSecond: 2.5, burst: 4 } });
    expect((await api('GET', '/v1/topics/rl.a/settings')).body).toEqual(put.body);
    // burst defaults to 1.
    expect((await api('PUT', '/v1/topics/rl.a/settings', { rateLimit: { perSecond: 3 } })).body).toEqual({
      topic: 'rl.a',
      rateLimit: { perSecond: 3, burst: 1 },
    });
    expect((await api('PUT', '/v1/topics/rl.a/settings', {})).body).toEqual({ topic: 'rl.a' });
    expect((await api('GET', '/v1/topics/rl.a/settings')).body).toEqual({ topic: 'rl.a' });
  });

  it.each([
    [{ rateLimit: { perSecond: 0, burst: 1 } }, 'rateLimit.perSecond'],
    [{ rateLimit: { perSecond: -5, burst: 1 } }, 'rateLimit.perSecond'],
    [{ rateLimit: { perSecond: 'fast' } }, 'rateLimit.perSecond'],
    [{ rateLimit: { perSecond: 1e-9 } }, 'rateLimit.perSecond'],
    [{ rateLimit: { perSecond: 2_000_000 } }, 'rateLimit.perSecond'],
    [{ rateLimit: { burst: 3 } }, 'rateLimit.perSecond'],
    [{ rateLimit: { perSecond: 5, burst: 0 } }, 'rateLimit.burst'],
    [{ rateLimit: { perSecond: 5, burst: 1.5 } }, 'rateLimit.burst'],
    [{ rateLimit: { perSecond: 5, burst: 1 }, speed: 1 }, 'speed'],
  ])('refuses %j naming %s, storing nothing', async (body, field) => {
    await api('PUT', '/v1/topics/rl.bad/settings', { rateLimit: { perSecond: 9, burst: 9 } });
    const answer = await api('PUT', '/v1/topics/rl.bad/settings', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field });
    expect((await api('GET', '/v1/topics/rl.bad/settings')).body.rateLimit).toEqual({ perSecond: 9, burst: 9 });
  });

  it('a bad topic name is refused naming topic', async () => {
    const answer = await api('PUT', '/v1/topics/bad%20topic/settings', {});
    expect(answer.status).toBe(400);
    expect(answer.body.error.field).toBe('topic');
  });

  it('a scoped token reads and sets only its own topics', async () => {
    expect((await api('PUT', '/v1/topics/billing.x/settings', { rateLimit: { perSecond: 1 } }, SCOPED)).status).toBe(
      200,
    );
    expect((await api('GET', '/v1/topics/orders.x/settings', undefined, SCOPED)).status).toBe(403);
    expect((await api('PUT', '/v1/topics/orders.x/settings', { rateLimit: { perSecond: 1 } }, SCOPED)).status).toBe(
      403,
    );
    expect((await api('GET', '/v1/topics/orders.x/settings')).body).toEqual({ topic: 'orders.x' });
  });

  it('jobs beyond the rate stay ready, not failed', async () => {
    await api('PUT', '/v1/topics/rl.slow/settings', { rateLimit: { perSecond: 0.001, burst: 2 } });
    await push('rl.slow', 5);
    expect(await reserve(['rl.slow'], 5)).toHaveLength(2);
    expect(await reserve(['rl.slow'], 5)).toHaveLength(0);
    // A long-poll gives up empty-handed: the next token is 1000 s away.
    expect(await reserve(['rl.slow'], 1, 300)).toHaveLength(0);
    const stats = (await api('GET', '/v1/topics/rl.slow/stats')).body;
    expect(stats.counts).toMatchObject({ ready: 3, reserved: 2, dead: 0 });
  });

  it('a long-poll refused by the rate gets the job when the next token comes, without a push', async () => {
    await api('PUT', '/v1/topics/rl.next/settings', { rateLimit: { perSecond: 20, burst: 1 } });
    await push('rl.next', 2);
    expect(await reserve(['rl.next'], 2)).toHaveLength(1);
    expect(await reserve(['rl.next'], 1, 10_000)).toHaveLength(1);
  });

  it('a reserve over several topics takes from a limited topic at most its tokens', async () => {
    await api('PUT', '/v1/topics/rl.mixed/settings', { rateLimit: { perSecond: 0.001, burst: 2 } });
    await push('rl.mixed', 5);
    await push('rl.free', 1);
    const got = await reserve(['rl.free', 'rl.mixed'], 5);
    expect(got.map((r) => r.job.topic).sort()).toEqual(['rl.free', 'rl.mixed', 'rl.mixed']);
  });
});
