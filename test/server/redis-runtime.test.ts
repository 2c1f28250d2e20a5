import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prefixPool } from '../helpers/redis-prefix.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';

/** The whole node (HTTP API, runtime, delivery bindings) configured for Redis, as `delayq serve --store redis` runs it. */
describe('runtime on the Redis store (127.0.0.1:6379)', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  const prefixes = prefixPool('runtime');
  const prefix = prefixes.next();
  afterAll(() => prefixes.sweep());

  beforeEach(async () => {
    const config = loadConfig({
      env: {},
      overrides: { store: { kind: 'redis' }, redis: { url: 'redis://127.0.0.1:6379', prefix, partitions: 4 } },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await closeGracefully(app, runtime, 100);
  });

  it('pushes, long-polls, finishes and reports stats through HTTP', async () => {
    expect(runtime.service.store.kind).toBe('redis');
    const pushed = await http(url, 'POST', '/v1/jobs', { json: { topic: 'orders', delayMs: 150, body: { n: 1 } } });
    expect(pushed.status).toBe(201);
    const reserved = await http(url, 'POST', '/v1/reserve', { json: { topics: ['orders'], waitMs: 5000 } });
    const [r] = reserved.body.reservations;
    expect(r.job.id).toBe(pushed.body.job.id);
    expect(r.job.readyAt).toBeGreaterThanOrEqual(pushed.body.job.runAt);
    const finished = await http(url, 'POST', `/v1/jobs/${r.job.id}/finish`, { json: { token: r.token } });
    expect(finished.status).toBe(200);
    const stats = await http(url, 'GET', '/v1/stats');
    expect(stats.body.topics.find((t: { topic: string }) => t.topic === 'orders').counts.finished).toBe(1);
    // delivery bindings live in the same Redis
    const put = await http(url, 'PUT', '/v1/topics/hooked/sink', {
      json: { type: 'webhook', url: 'http://127.0.0.1:9/x', allowedRanges: ['loopback'] },
    });
    expect(put.status).toBe(200);
    expect((await http(url, 'GET', '/v1/sinks')).body.bindings.map((x: { topic: string }) => x.topic)).toEqual([
      'hooked',
    ]);
  });
});
