/**
 * GET /v1/consumers on Redis with two delayq processes on one store: each lists the other's consumers (a
 * long-poll waiting on A is seen from B, with A's node), a binding pumped by both shows once per node, and a
 * process that vanishes without withdrawing drops out when its publication expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';

interface Instance {
  runtime: DelayqRuntime;
  app: DelayqApp;
  url: string;
}

describe('GET /v1/consumers on Redis, two instances', () => {
  const prefixes = prefixPool('consumers');
  const prefix = prefixes.next();
  let a: Instance;
  let b: Instance;
  const consumers = async (i: Instance, query = '') =>
    (await http(i.url, 'GET', `/v1/consumers${query}`)).body.consumers as {
      node: string;
      kind: string;
      topics: string[];
    }[];

  const start = async (nodeId: string): Promise<Instance> => {
    const config = loadConfig({
      env: {},
      overrides: {
        nodeId,
        store: { kind: 'redis' },
        redis: { url: 'redis://127.0.0.1:6379', prefix, partitions: 2 },
        sinks: { refreshIntervalMs: 100 },
      },
    });
    const runtime = createRuntime(config);
    await runtime.start();
    const app = await buildApp(runtime.service, config, { sinks: runtime.sinks });
    return { runtime, app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
  };

  beforeAll(async () => {
    a = await start('node-a');
    b = await start('node-b');
  });
  afterAll(async () => {
    for (const i of [a, b]) if (i) await closeGracefully(i.app, i.runtime, 100);
    await prefixes.sweep();
  });

  it("lists a long-poll waiting on one instance from the other, with that instance's node", async () => {
    const polling = http(a.url, 'POST', '/v1/reserve', { json: { topics: ['mail'], waitMs: 10_000 } });
    await waitFor(async () => (await consumers(b)).length === 1, 'B to see the long-poll on A');
    expect(await consumers(b)).toMatchObject([{ node: 'node-a', kind: 'long-poll', topics: ['mail'] }]);
    expect(await consumers(a)).toEqual(await consumers(b));
    // a push through B wakes the long-poll on A; once it answered, B no longer lists it
    await http(b.url, 'POST', '/v1/jobs', { json: { topic: 'mail', id: 'm-1' } });
    expect((await polling).body.reservations[0].job.id).toBe('m-1');
    await waitFor(async () => (await consumers(b)).length === 0, 'the long-poll gone from B');
  });

  it('shows a binding pumped by both instances once per node', async () => {
    const put = await http(b.url, 'PUT', '/v1/topics/hooks.b/sink', {
      json: { type: 'webhook', url: 'http://127.0.0.1:9/never', allowedRanges: ['loopback'] },
    });
    expect(put.status).toBe(200);
    const nodes = async (i: Instance) => (await consumers(i, '?kind=sink')).map((c) => c.node).sort();
    await waitFor(async () => (await nodes(a)).length === 2 && (await nodes(b)).length === 2, 'both pumps listed');
    expect(await nodes(a)).toEqual(['node-a', 'node-b']);
    await http(a.url, 'DELETE', '/v1/topics/hooks.b/sink');
    await waitFor(async () => (await nodes(b)).length === 0, 'both pumps gone');
  });

  it('drops a process that vanished without a word once its publication expires', async () => {
    const now = a.runtime.service.clock.now();
    const ghost = {
      id: 'ghost#1',
      node: 'ghost',
      kind: 'long-poll' as const,
      topics: ['mail'],
      since: now,
      remote: null,
      held: 0,
    };
    await a.runtime.service.store.consumers.publish('ghost', [ghost], 300, now);
    expect((await consumers(b)).map((c) => c.node)).toEqual(['ghost']);
    await waitFor(async () => (await consumers(b)).length === 0, 'the ghost expired', 3000);
  });
});
