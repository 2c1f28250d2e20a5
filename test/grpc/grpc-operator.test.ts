/** The operators' gRPC calls (List, ListDead, Redrive, PauseTopic, ResumeTopic, GetTopicStats, Purge, RestoreJob) against HTTP's rules. */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from '../helpers/grpc-server.js';
import { bearer, call, callError, grpcClient, type GrpcClient } from './grpc-client.js';

describe('gRPC operator calls (embedded store)', () => {
  let server: GrpcTestServer;
  let client: GrpcClient;
  beforeAll(async () => {
    server = await startGrpcServer();
    client = grpcClient(server.grpcTarget);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  /** Reserves every ready job of a topic and buries it: the dead letters of the test. */
  async function buryAll(topic: string): Promise<void> {
    for (const r of await server.service.reserve({ topics: [topic], count: 100 }))
      await server.service.fail(r.job.id, r.token, { bury: true, error: 'boom' });
  }

  it('lists jobs by topic and state a page at a time, as GET /v1/jobs', async () => {
    for (let i = 0; i < 5; i++)
      await call(client, 'Push', { topic: 'op-list', id: `ol-${i}`, delayMs: i % 2 ? 60_000 : 0 });
    const first = await call(client, 'List', { topic: 'op-list', limit: 2 });
    expect(first.jobs.map((j: any) => j.id)).toEqual(['ol-0', 'ol-1']);
    const second = await call(client, 'List', { topic: 'op-list', limit: 2, cursor: first.next });
    expect(second.jobs.map((j: any) => j.id)).toEqual(['ol-2', 'ol-3']);
    const last = await call(client, 'List', { topic: 'op-list', limit: 2, cursor: second.next });
    expect(last.jobs.map((j: any) => j.id)).toEqual(['ol-4']);
    expect(last.next).toBeUndefined();
    const delayed = await call(client, 'List', { topic: 'op-list', state: 'delayed' });
    expect(delayed.jobs.map((j: any) => j.id)).toEqual(['ol-1', 'ol-3']);
    expect(await callError(client, 'List', { limit: 0 })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'E_VALIDATION',
      field: 'limit',
    });
    expect(await callError(client, 'List', { state: 'sleeping' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'state',
    });
  });

  it('lists dead letters and redrives them by ids and by topic, as /v1/dead', async () => {
    for (let i = 0; i < 3; i++) await call(client, 'Push', { topic: 'op-dead', id: `od-${i}` });
    await buryAll('op-dead');
    const dead = await call(client, 'ListDead', { topic: 'op-dead' });
    expect(dead.jobs.map((j: any) => [j.id, j.state, j.lastError])).toEqual([
      ['od-0', 'dead', 'boom'],
      ['od-1', 'dead', 'boom'],
      ['od-2', 'dead', 'boom'],
    ]);
    expect(await call(client, 'Redrive', { ids: ['od-1', 'no-such-job'] })).toEqual({ count: 1 });
    expect(await call(client, 'Redrive', { topic: 'op-dead', limit: 1 })).toEqual({ count: 1 });
    expect((await call(client, 'ListDead', { topic: 'op-dead' })).jobs).toHaveLength(1);
    expect(await callError(client, 'Redrive', {})).toMatchObject({ status: status.INVALID_ARGUMENT });
    expect(await callError(client, 'Redrive', { topic: 'op-dead', ids: ['od-0'] })).toMatchObject({
      status: status.INVALID_ARGUMENT,
    });
    expect(await callError(client, 'ListDead', { topic: 'bad topic' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'topic',
    });
  });

  it('pauses and resumes a topic; its stats show the pause', async () => {
    await call(client, 'Push', { topic: 'op-pause', id: 'op-1' });
    expect(await call(client, 'PauseTopic', { topic: 'op-pause' })).toEqual({ topic: 'op-pause', paused: true });
    expect(await server.service.reserve({ topics: ['op-pause'] })).toEqual([]);
    expect(await call(client, 'GetTopicStats', { topic: 'op-pause' })).toMatchObject({
      topic: 'op-pause',
      paused: true,
      counts: { ready: 1 },
    });
    const timed = await call(client, 'PauseTopic', { topic: 'op-pause', delayMs: 60_000 });
    expect(timed.pausedUntil).toBeGreaterThan(Date.now());
    expect(await call(client, 'ResumeTopic', { topic: 'op-pause' })).toEqual({ topic: 'op-pause', paused: false });
    expect(await server.service.reserve({ topics: ['op-pause'] })).toMatchObject([{ job: { id: 'op-1' } }]);
    expect(await callError(client, 'GetTopicStats', { topic: 'op-never-used' })).toMatchObject({
      status: status.NOT_FOUND,
      code: 'E_NOT_FOUND',
    });
    expect(await callError(client, 'PauseTopic', { topic: '' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'topic',
    });
  });

  it('purges ended jobs, and needs the journal for RestoreJob', async () => {
    await call(client, 'Push', { topic: 'op-purge', id: 'opp-1' });
    const [r] = await server.service.reserve({ topics: ['op-purge'] });
    await server.service.finish(r!.job.id, r!.token);
    expect(await callError(client, 'Purge', {})).toMatchObject({ status: status.INVALID_ARGUMENT, field: 'before' });
    expect((await call(client, 'Purge', { before: Date.now() + 1000 })).count).toBeGreaterThanOrEqual(1);
    expect(await callError(client, 'Get', { id: 'opp-1' })).toMatchObject({ status: status.NOT_FOUND });
    expect(await callError(client, 'RestoreJob', { id: 'opp-1' })).toMatchObject({
      status: status.FAILED_PRECONDITION,
      code: 'E_CONFLICT',
    });
  });
});

describe('gRPC operator calls and topic scopes', () => {
  const admin = 'admin-secret-xxxxxxxxxxxx';
  const shop = 'shop-secret-xxxxxxxxxxxxx';
  let server: GrpcTestServer;
  let client: GrpcClient;
  beforeAll(async () => {
    server = await startGrpcServer({ auth: { tokens: [{ token: admin }, { token: shop, topics: ['orders.'] }] } });
    client = grpcClient(server.grpcTarget);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  it('keeps a scoped token to its topics, and operator-wide calls to unscoped tokens', async () => {
    await call(client, 'Push', { topic: 'billing', id: 'sb-1' }, bearer(admin));
    await call(client, 'Push', { topic: 'orders.x', id: 'so-1' }, bearer(shop));
    expect(await callError(client, 'List', {})).toMatchObject({ status: status.UNAUTHENTICATED });
    expect((await call(client, 'List', { topic: 'orders.x' }, bearer(shop))).jobs).toHaveLength(1);
    // Without a topic: its own topics' jobs only; redrive by ids passes over another topic's job as over an unknown id.
    expect((await call(client, 'List', {}, bearer(shop))).jobs.map((j: any) => j.id)).toEqual(['so-1']);
    expect(await call(client, 'Redrive', { ids: ['sb-1'] }, bearer(shop))).toMatchObject({ count: 0 });
    for (const [method, request] of [
      ['List', { topic: 'billing' }],
      ['ListDead', { topic: 'billing' }],
      ['Redrive', { topic: 'billing' }],
      ['PauseTopic', { topic: 'billing' }],
      ['ResumeTopic', { topic: 'billing' }],
      ['GetTopicStats', { topic: 'billing' }],
      ['Purge', { before: 1 }],
      ['RestoreJob', { id: 'sb-1' }],
    ] as const) {
      expect(await callError(client, method, request, bearer(shop)), method).toMatchObject({
        status: status.PERMISSION_DENIED,
        code: 'E_FORBIDDEN',
      });
    }
    expect(await call(client, 'PauseTopic', { topic: 'billing' }, bearer(admin))).toMatchObject({ paused: true });
  });
});
