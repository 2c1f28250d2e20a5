import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('the dedup window over HTTP and the SDK', () => {
  it('answers the first job to a push with its key inside the window, 200 duplicate', async () => {
    const first = await client.push({ topic: 'dd-a', body: 1, dedupKey: 'order-9', dedupWindowMs: '1h' });
    expect(first).toMatchObject({ created: true, outcome: 'created' });
    const raw = await http(server.url, 'POST', '/v1/jobs', {
      json: { topic: 'dd-a', id: 'dd-other', body: 2, dedupKey: 'order-9', dedupWindowMs: 3_600_000 },
    });
    expect(raw.status).toBe(200);
    expect(raw.body).toMatchObject({ created: false, outcome: 'duplicate', job: { id: first.job.id, body: 1 } });
    expect((await http(server.url, 'GET', '/v1/jobs/dd-other')).status).toBe(404);
    // Another topic's key of the same name is its own.
    const elsewhere = await client.push({ topic: 'dd-b', dedupKey: 'order-9', dedupWindowMs: 1000 });
    expect(elsewhere.outcome).toBe('created');
  });

  it('answers each job of a batch: one job for two pushes of one key', async () => {
    const results = await client.pushBatch([
      { topic: 'dd-c', id: 'dd-c-1', dedupKey: 'k', dedupWindowMs: 60_000 },
      { topic: 'dd-c', id: 'dd-c-2', dedupKey: 'k', dedupWindowMs: 60_000 },
    ]);
    expect(results.map((r) => [r.outcome, r.job.id])).toEqual([
      ['created', 'dd-c-1'],
      ['duplicate', 'dd-c-1'],
    ]);
  });

  it('makes a new job once the window is over', async () => {
    const first = await client.push({ topic: 'dd-d', dedupKey: 'k', dedupWindowMs: 50 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const second = await client.push({ topic: 'dd-d', dedupKey: 'k', dedupWindowMs: 50 });
    expect(second.outcome).toBe('created');
    expect(second.job.id).not.toBe(first.job.id);
  });

  it('refuses a bad key or window with 400 naming the field, storing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ dedupKey: 'k', dedupWindowMs: -1 }, 'dedupWindowMs'],
      [{ dedupKey: 'k', dedupWindowMs: 0 }, 'dedupWindowMs'],
      [{ dedupKey: 'k', dedupWindowMs: 31 * 86_400_000 }, 'dedupWindowMs'],
      [{ dedupKey: 'k', dedupWindowMs: '31d' }, 'dedupWindowMs'],
      [{ dedupKey: 'k', dedupWindowMs: 'soon' }, 'dedupWindowMs'],
      [{ dedupKey: 'k' }, 'dedupWindowMs'],
      [{ dedupWindowMs: 1000 }, 'dedupWindowMs'],
      [{ dedupKey: 'a b', dedupWindowMs: 1000 }, 'dedupKey'],
      [{ dedupKey: 'tick~1', dedupWindowMs: 1000 }, 'dedupKey'],
      [{ dedupKey: '', dedupWindowMs: 1000 }, 'dedupKey'],
      [{ dedupKey: 'x'.repeat(129), dedupWindowMs: 1000 }, 'dedupKey'],
    ];
    for (const [fields, field] of cases) {
      const answer = await http(server.url, 'POST', '/v1/jobs', { json: { topic: 'dd-e', id: 'dd-bad', ...fields } });
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(answer.body.error.field, JSON.stringify(fields)).toBe(field);
    }
    const batch = await http(server.url, 'POST', '/v1/jobs/batch', {
      json: { jobs: [{ topic: 'dd-e' }, { topic: 'dd-e', id: 'dd-bad', dedupKey: 'k', dedupWindowMs: -5 }] },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.field).toBe('jobs[1].dedupWindowMs');
    expect((await http(server.url, 'GET', '/v1/jobs/dd-bad')).status).toBe(404);
    expect((await http(server.url, 'GET', '/v1/jobs?topic=dd-e')).body.jobs).toEqual([]);
  });
});
