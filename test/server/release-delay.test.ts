import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { http, startServer, waitFor, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => server.close());

describe('POST /v1/jobs/{id}/release with delayMs', () => {
  it('delays the released job (SDK), the attempt given back; without delayMs it is ready at once', async () => {
    await client.push({ topic: 'rel-a', id: 'rel-1', body: 1 });
    const [r] = await client.reserve({ topics: ['rel-a'] });
    const released = await client.release('rel-1', r!.token, { delayMs: 60_000 });
    expect(released).toMatchObject({ state: 'delayed', attempts: 0 });
    expect(released.runAt).toBeGreaterThanOrEqual(r!.job.runAt + 60_000 - 1000);
    expect(await client.reserve({ topics: ['rel-a'] })).toEqual([]);

    await client.push({ topic: 'rel-a', id: 'rel-2', body: 2 });
    const [r2] = await client.reserve({ topics: ['rel-a'] });
    expect(await client.release('rel-2', r2!.token)).toMatchObject({ state: 'ready', attempts: 0 });
  });

  it('accepts a duration text and refuses a bad delayMs naming the field', async () => {
    await client.push({ topic: 'rel-b', id: 'rel-3', body: 3 });
    const [r] = await client.reserve({ topics: ['rel-b'] });
    const bad = await http(server.url, 'POST', '/v1/jobs/rel-3/release', { json: { token: r!.token, delayMs: -5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toContain('delayMs');
    const words = await http(server.url, 'POST', '/v1/jobs/rel-3/release', {
      json: { token: r!.token, delayMs: 'soon' },
    });
    expect(words.status).toBe(400);
    expect(words.body.error.field).toBe('delayMs');
    const ok = await http(server.url, 'POST', '/v1/jobs/rel-3/release', { json: { token: r!.token, delayMs: '2h' } });
    expect(ok.status).toBe(200);
    expect(ok.body.job.state).toBe('delayed');
  });
});

describe('paused topics over HTTP and the SDK', () => {
  it('a paused topic is not reserved until resumed; /v1/stats shows the pause', async () => {
    await client.push({ topic: 'pz-a', id: 'pz-1', body: 1 });
    expect(await client.pauseTopic('pz-a')).toEqual({ topic: 'pz-a', paused: true, pausedUntil: null });
    expect(await client.reserve({ topics: ['pz-a'] })).toEqual([]);
    const stats = (await client.stats()).find((t) => t.topic === 'pz-a');
    expect(stats).toMatchObject({ paused: true, pausedUntil: null, counts: { ready: 1 } });
    // A long-poll waiting on the paused topic gets the job as soon as it is resumed.
    const waiting = client.reserve({ topics: ['pz-a'], waitMs: 10_000 });
    await waitFor(() => server.service.waitingConsumers === 1, 'the long-poll to wait');
    expect(await client.resumeTopic('pz-a')).toEqual({ topic: 'pz-a', paused: false, pausedUntil: null });
    const [got] = await waiting;
    expect(got!.job.id).toBe('pz-1');
  });

  it('a timed pause lifts by itself, and a paused topic without jobs is listed in stats', async () => {
    // The service's own clock (monotonic since its start, whole ms), which may trail Date.now() by a millisecond.
    const before = server.service.clock.now();
    const pause = await client.pauseTopic('pz-b', { delayMs: 300 });
    expect(pause.pausedUntil).toBeGreaterThanOrEqual(before + 300);
    expect((await client.stats()).find((t) => t.topic === 'pz-b')).toMatchObject({
      paused: true,
      counts: { ready: 0 },
    });
    await client.push({ topic: 'pz-b', id: 'pz-2', body: 2 });
    const [got] = await client.reserve({ topics: ['pz-b'], waitMs: 5000 });
    expect(got!.job.id).toBe('pz-2');
    expect(server.service.clock.now()).toBeGreaterThanOrEqual(pause.pausedUntil!);
  });

  it('refuses a bad delayMs and a bad topic naming the field', async () => {
    const bad = await http(server.url, 'POST', '/v1/topics/pz-c/pause', { json: { delayMs: 'later' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('delayMs');
    const badTopic = await http(server.url, 'POST', '/v1/topics/%7Bx%7D/pause', { json: {} });
    expect(badTopic.status).toBe(400);
    const empty = await http(server.url, 'POST', '/v1/topics/pz-c/pause');
    expect(empty.status).toBe(200);
    expect((await http(server.url, 'POST', '/v1/topics/pz-c/resume')).body).toEqual({
      topic: 'pz-c',
      paused: false,
      pausedUntil: null,
    });
  });
});
