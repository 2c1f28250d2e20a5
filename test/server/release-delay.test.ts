import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

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
    const words = await http(server.url, 'POST', '/v1/jobs/rel-3/release', { json: { token: r!.token, delayMs: 'soon' } });
    expect(words.status).toBe(400);
    expect(words.body.error.field).toBe('delayMs');
    const ok = await http(server.url, 'POST', '/v1/jobs/rel-3/release', { json: { token: r!.token, delayMs: '2h' } });
    expect(ok.status).toBe(200);
    expect(ok.body.job.state).toBe('delayed');
  });
});
