import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import type { ServiceJobEvent } from '../../src/service/service-events.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => server.close());

describe('POST /v1/jobs/{id}/run-now', () => {
  it('makes a delayed job ready at once, and its history says so', async () => {
    await client.push({ topic: 'run-now-a', id: 'rn-1', body: 1, delayMs: 3_600_000 });
    const heard: ServiceJobEvent[] = [];
    const listen = (e: ServiceJobEvent) => heard.push(e);
    server.service.events.on('job', listen);
    const answer = await http(server.url, 'POST', '/v1/jobs/rn-1/run-now');
    server.service.events.off('job', listen);
    expect(heard.filter((e) => e.id === 'rn-1')).toMatchObject([{ event: 'promote', topic: 'run-now-a' }]);
    expect(answer.status).toBe(200);
    expect(answer.body.job).toMatchObject({ id: 'rn-1', state: 'ready' });
    expect(answer.body.job.runAt).toBeLessThanOrEqual(Date.now());
    const history = await http(server.url, 'GET', '/v1/jobs/rn-1/history');
    expect(history.body.history.at(-1)).toMatchObject({ event: 'promote', state: 'ready', reason: 'run now' });
    const [r] = await client.reserve({ topics: ['run-now-a'] });
    expect(r?.job.id).toBe('rn-1');
  });

  it('runs a job waiting for a retry, through the SDK with an empty body', async () => {
    await client.push({ topic: 'run-now-b', id: 'rn-2', body: 1, retry: '1h' });
    const [r] = await client.reserve({ topics: ['run-now-b'] });
    expect((await client.fail('rn-2', r!.token, { error: 'boom' })).job.state).toBe('delayed');
    expect(await client.runNow('rn-2')).toMatchObject({ state: 'ready', attempts: 1, lastError: 'boom' });
  });

  it('refuses a job that is not delayed with 409 naming its state, and an unknown id with 404', async () => {
    await client.push({ topic: 'run-now-c', id: 'rn-3', body: 1 });
    const refused = await http(server.url, 'POST', '/v1/jobs/rn-3/run-now', { json: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'E_WRONG_STATE', details: { id: 'rn-3', state: 'ready' } });
    expect(refused.body.error.message).toContain('only a delayed job');
    expect((await http(server.url, 'GET', '/v1/jobs/rn-3/history')).body.history).toHaveLength(1);
    const unknown = await http(server.url, 'POST', '/v1/jobs/rn-none/run-now');
    expect(unknown.status).toBe(404);
    await expect(client.runNow('rn-none')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
  });

  it('refuses a body with fields (400 naming the field)', async () => {
    await client.push({ topic: 'run-now-d', id: 'rn-4', body: 1, delayMs: 60_000 });
    const bad = await http(server.url, 'POST', '/v1/jobs/rn-4/run-now', { json: { delayMs: 5 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain('delayMs');
    expect((await client.get('rn-4')).state).toBe('delayed');
  });
});
