/**
 * GET /v1/consumers on the embedded store: a waiting long-poll, a gRPC Reserve stream, a beanstalkd worker
 * and a push sink are each listed with their topics, address and reservations held, and leave the list when
 * they go; a token limited to topic prefixes sees only its topics; bad input names its field.
 */
import type { ClientDuplexStream } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { DelayqGrpcServer } from '../../src/grpc/grpc-server.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { RawSession } from '../beanstalkd/raw-socket.js';
import { grpcClient, type GrpcClient } from '../grpc/grpc-client.js';
import { http, waitFor } from '../helpers/http-server.js';

const ADMIN = 'consumers-admin-token-001';
const SCOPED = 'consumers-scoped-token-001';

interface Consumer {
  id: string;
  node: string;
  kind: string;
  topics: string[];
  since: number;
  remote: string | null;
  held: number;
}

describe('GET /v1/consumers (embedded)', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let grpc: DelayqGrpcServer;
  let grpcTarget: string;
  let beanstalkd: BeanstalkdServer;
  const get = async (query = '', token = ADMIN) =>
    http(url, 'GET', `/v1/consumers${query}`, { headers: { authorization: `Bearer ${token}` } });
  const consumers = async (query = '', token = ADMIN): Promise<Consumer[]> => (await get(query, token)).body.consumers;
  const post = (path: string, json: unknown) =>
    http(url, 'POST', path, { json, headers: { authorization: `Bearer ${ADMIN}` } });

  beforeAll(async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        sqlite: { path: ':memory:' },
        auth: { tokens: [{ token: ADMIN }, { token: SCOPED, topics: ['billing.'] }] },
        sinks: { refreshIntervalMs: 100 },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { sinks: runtime.sinks });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    grpc = new DelayqGrpcServer(runtime.service, config as Readonly<Config>);
    grpcTarget = `127.0.0.1:${await grpc.listen(0, '127.0.0.1')}`;
    beanstalkd = new BeanstalkdServer(runtime.service, { host: '127.0.0.1', port: 0, maxJobSize: 65536 });
    await beanstalkd.listen();
  });
  afterAll(async () => {
    await beanstalkd?.close();
    await grpc?.close(100);
    if (app) await closeGracefully(app, runtime, 100);
  });

  it('lists a long-poll while it waits, with its topics and address, and not once it answered', async () => {
    expect(await consumers()).toEqual([]);
    const polling = post('/v1/reserve', { topics: ['billing.refunds', 'orders'], waitMs: 10_000 });
    await waitFor(async () => (await consumers()).length === 1, 'the long-poll listed');
    const [c] = await consumers();
    expect(c).toMatchObject({ kind: 'long-poll', topics: ['billing.refunds', 'orders'], held: 0 });
    expect(c!.node).toBe(runtime.service.nodeId);
    expect(c!.remote).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(c!.since).toBeLessThanOrEqual(runtime.service.clock.now());
    // a token limited to billing. sees it with its own topics only; another topic's filter does not match
    expect(await consumers('', SCOPED)).toMatchObject([{ kind: 'long-poll', topics: ['billing.refunds'] }]);
    expect(await consumers('?topic=invoices')).toEqual([]);
    expect(await consumers('?topic=orders')).toHaveLength(1);
    await post('/v1/jobs', { topic: 'orders', id: 'o-1' });
    expect((await polling).body.reservations[0].job.id).toBe('o-1');
    expect(await consumers()).toEqual([]);
    // a reserve that finds a job at once never waits, so it is never listed
    await post('/v1/jobs', { topic: 'orders', id: 'o-2' });
    expect((await post('/v1/reserve', { topics: ['orders'], waitMs: 5000 })).body.reservations).toHaveLength(1);
    expect(await consumers()).toEqual([]);
  });

  it('lists a gRPC Reserve stream while it is open, with the reservations it holds', async () => {
    const client: GrpcClient = grpcClient(grpcTarget);
    const { Metadata } = await import('@grpc/grpc-js');
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${ADMIN}`);
    const stream: ClientDuplexStream<any, any> = client['Reserve'](metadata);
    stream.on('error', () => undefined);
    const first = new Promise<any>((resolve) => stream.once('data', resolve));
    await post('/v1/jobs', { topic: 'streams', id: 's-1' });
    stream.write({ subscribe: { topics: ['streams'] }, credit: 1 });
    expect((await first).reservations[0].job.id).toBe('s-1');
    await waitFor(async () => (await consumers('?kind=grpc-stream')).length === 1, 'the stream listed');
    expect(await consumers('?kind=grpc-stream')).toMatchObject([{ topics: ['streams'], held: 1 }]);
    stream.end();
    await waitFor(async () => (await consumers('?kind=grpc-stream')).length === 0, 'the stream gone');
    client.close();
  });

  it('lists a beanstalkd connection once it reserved, with its watch list, until it closes', async () => {
    const session = await RawSession.open(beanstalkd.port);
    expect(await session.ask('watch tubes.a')).toBe('WATCHING 2');
    expect(await consumers('?kind=beanstalkd')).toEqual([]); // not a worker yet
    expect(await session.ask('reserve-with-timeout 0')).toBe('TIMED_OUT');
    expect(await consumers('?kind=beanstalkd')).toMatchObject([{ topics: ['default', 'tubes.a'], held: 0 }]);
    session.close();
    await waitFor(async () => (await consumers('?kind=beanstalkd')).length === 0, 'the worker gone');
  });

  it('lists a delivery binding while its pump runs', async () => {
    const put = await http(url, 'PUT', '/v1/topics/hooks.a/sink', {
      json: { type: 'webhook', name: 'hook-a', url: 'http://127.0.0.1:9/never', allowedRanges: ['loopback'] },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(put.status).toBe(200);
    await waitFor(async () => (await consumers('?kind=sink')).length === 1, 'the sink listed');
    expect(await consumers('?kind=sink')).toMatchObject([{ topics: ['hooks.a'], remote: 'webhook hook-a', held: 0 }]);
    await http(url, 'DELETE', '/v1/topics/hooks.a/sink', { headers: { authorization: `Bearer ${ADMIN}` } });
    await waitFor(async () => (await consumers('?kind=sink')).length === 0, 'the sink gone');
  });

  it('refuses bad input naming the field, and a topic the token may not use', async () => {
    const badKind = await get('?kind=worker');
    expect(badKind.status).toBe(400);
    expect(badKind.body.error.field).toBe('kind');
    const badTopic = await get('?topic=a%20b');
    expect(badTopic.body.error.field).toBe('topic');
    const forbidden = await get('?topic=orders', SCOPED);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.field).toBe('topic');
  });
});
