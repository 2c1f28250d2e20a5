/** GetTopicSettings, PutTopicSettings and the group pauses over gRPC, against HTTP's rules (routes/topic-settings.ts, routes/group-pauses.ts). */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcServer, type GrpcTestServer } from '../helpers/grpc-server.js';
import { call, callError, grpcClient, type GrpcClient } from './grpc-client.js';

describe('gRPC topic settings (embedded store)', () => {
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

  it('puts, reads and clears a rate limit; the limit holds for reserve', async () => {
    expect(await call(client, 'GetTopicSettings', { topic: 'gs-a' })).toEqual({ topic: 'gs-a' });
    const put = await call(client, 'PutTopicSettings', { topic: 'gs-a', rateLimit: { perSecond: 0.001, burst: 2 } });
    expect(put).toEqual({ topic: 'gs-a', rateLimit: { perSecond: 0.001, burst: 2 } });
    expect(await call(client, 'GetTopicSettings', { topic: 'gs-a' })).toEqual(put);
    for (let i = 0; i < 4; i++) await call(client, 'Push', { topic: 'gs-a', id: `gs-${i}` });
    expect(await server.service.reserve({ topics: ['gs-a'], count: 4 })).toHaveLength(2);
    expect(await call(client, 'PutTopicSettings', { topic: 'gs-a', rateLimit: { perSecond: 4 } })).toEqual({
      topic: 'gs-a',
      rateLimit: { perSecond: 4, burst: 1 },
    });
    expect(await call(client, 'PutTopicSettings', { topic: 'gs-a' })).toEqual({ topic: 'gs-a' });
    expect(await server.service.reserve({ topics: ['gs-a'], count: 4 })).toHaveLength(2);
  });

  it('refuses a bad rate naming the field, storing nothing', async () => {
    await call(client, 'PutTopicSettings', { topic: 'gs-b', rateLimit: { perSecond: 3, burst: 3 } });
    expect(await callError(client, 'PutTopicSettings', { topic: 'gs-b', rateLimit: { perSecond: 0 } })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'E_VALIDATION',
      field: 'rateLimit.perSecond',
    });
    expect(
      await callError(client, 'PutTopicSettings', { topic: 'gs-b', rateLimit: { perSecond: 1, burst: 0 } }),
    ).toMatchObject({ status: status.INVALID_ARGUMENT, field: 'rateLimit.burst' });
    expect(await callError(client, 'GetTopicSettings', { topic: '' })).toMatchObject({ field: 'topic' });
    expect((await call(client, 'GetTopicSettings', { topic: 'gs-b' })).rateLimit).toEqual({ perSecond: 3, burst: 3 });
  });

  it('puts groupConcurrency; a job carries its group; the bound holds for reserve; bad values name their field', async () => {
    const put = await call(client, 'PutTopicSettings', { topic: 'gs-g', groupConcurrency: 1 });
    expect(put).toEqual({ topic: 'gs-g', groupConcurrency: 1 });
    expect(await call(client, 'GetTopicSettings', { topic: 'gs-g' })).toEqual(put);
    const pushed = await call(client, 'Push', { topic: 'gs-g', group: 'tenant-1' });
    expect(pushed.job.group).toBe('tenant-1');
    await call(client, 'PushBatch', {
      jobs: [
        { topic: 'gs-g', group: 'tenant-1' },
        { topic: 'gs-g', group: 'tenant-2' },
      ],
    });
    const got = await server.service.reserve({ topics: ['gs-g'], count: 3 });
    expect(got.map((r) => r.job.group).sort()).toEqual(['tenant-1', 'tenant-2']);
    expect(await callError(client, 'PutTopicSettings', { topic: 'gs-g', groupConcurrency: 0 })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'E_VALIDATION',
      field: 'groupConcurrency',
    });
    expect(await callError(client, 'Push', { topic: 'gs-g', group: 'a b' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      field: 'group',
    });
    expect(await call(client, 'GetTopicSettings', { topic: 'gs-g' })).toEqual(put);
  });

  it('puts groupRateLimit; each group gets its own tokens on reserve; a bad one names its field', async () => {
    const put = await call(client, 'PutTopicSettings', {
      topic: 'gs-r',
      groupRateLimit: { perSecond: 0.001, burst: 1 },
    });
    expect(put).toEqual({ topic: 'gs-r', groupRateLimit: { perSecond: 0.001, burst: 1 } });
    expect(await call(client, 'GetTopicSettings', { topic: 'gs-r' })).toEqual(put);
    await call(client, 'PushBatch', {
      jobs: ['a', 'a', 'b', 'b'].map((group) => ({ topic: 'gs-r', group })),
    });
    const got = await server.service.reserve({ topics: ['gs-r'], count: 4 });
    expect(got.map((r) => r.job.group).sort()).toEqual(['a', 'b']);
    expect(
      await callError(client, 'PutTopicSettings', { topic: 'gs-r', groupRateLimit: { perSecond: 1, burst: 0 } }),
    ).toMatchObject({ status: status.INVALID_ARGUMENT, code: 'E_VALIDATION', field: 'groupRateLimit.burst' });
    expect(await call(client, 'GetTopicSettings', { topic: 'gs-r' })).toEqual(put);
  });

  it('pauses one group, lists it, resumes it; the pause holds for reserve; a bad group names its field', async () => {
    await call(client, 'PushBatch', {
      jobs: [
        { topic: 'gs-p', group: 'held', id: 'gs-p-held' },
        { topic: 'gs-p', group: 'free', id: 'gs-p-free' },
      ],
    });
    expect(await call(client, 'PauseGroup', { topic: 'gs-p', group: 'held' })).toEqual({
      topic: 'gs-p',
      group: 'held',
      paused: true,
    });
    const timed = await call(client, 'PauseGroup', { topic: 'gs-p', group: 'later', delayMs: 60_000 });
    expect(Number(timed.pausedUntil)).toBeGreaterThan(Date.now());
    expect(await call(client, 'ListPausedGroups', { topic: 'gs-p' })).toEqual({
      topic: 'gs-p',
      groups: [{ group: 'held' }, { group: 'later', pausedUntil: timed.pausedUntil }],
    });
    expect((await server.service.reserve({ topics: ['gs-p'], count: 5 })).map((r) => r.job.id)).toEqual(['gs-p-free']);
    expect(await call(client, 'ResumeGroup', { topic: 'gs-p', group: 'held' })).toEqual({
      topic: 'gs-p',
      group: 'held',
      paused: false,
    });
    expect((await server.service.reserve({ topics: ['gs-p'], count: 5 })).map((r) => r.job.id)).toEqual(['gs-p-held']);
    expect(await callError(client, 'PauseGroup', { topic: 'gs-p', group: 'a/b' })).toMatchObject({
      status: status.INVALID_ARGUMENT,
      code: 'E_VALIDATION',
      field: 'group',
    });
    expect(await callError(client, 'PauseGroup', { topic: 'gs-p', group: '' })).toMatchObject({ field: 'group' });
  });
});
