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

describe('upsert and debounce over HTTP and the SDK', () => {
  it('answers created, kept, replaced and extended, and records them in the history', async () => {
    const first = await client.push({ topic: 'up-a', id: 'up-1', body: 1, delayMs: 60_000 });
    expect(first).toMatchObject({ created: true, outcome: 'created' });
    const kept = await client.push({ topic: 'up-a', id: 'up-1', body: 2, delayMs: 1000 });
    expect(kept).toMatchObject({ created: false, outcome: 'kept', job: { body: 1 } });
    const replaced = await client.push({
      topic: 'up-a',
      id: 'up-1',
      body: 3,
      delayMs: 120_000,
      priority: 4,
      onExists: 'replace',
    });
    expect(replaced).toMatchObject({ created: false, outcome: 'replaced', job: { body: 3, priority: 4 } });
    expect(replaced.job.runAt - first.job.runAt).toBeGreaterThanOrEqual(60_000);
    const extended = await client.push({
      topic: 'up-a',
      id: 'up-1',
      body: 4,
      delayMs: '4m',
      onExists: 'extend',
      maxWaitMs: '4m',
    });
    expect(extended).toMatchObject({ outcome: 'extended', job: { body: 3 } });
    // now + 4 minutes, capped at four minutes after the first push
    expect(extended.job.runAt).toBe(first.job.createdAt + 240_000);
    const { history } = await client.getWithHistory('up-1');
    expect(history.map((h) => h.event)).toEqual(['push', 'replace', 'extend']);
  });

  it('answers each job of a batch with its outcome', async () => {
    const results = await client.pushBatch([
      { topic: 'up-b', id: 'up-2', delayMs: 5000 },
      { topic: 'up-b', id: 'up-2', delayMs: 9000, onExists: 'extend' },
      { topic: 'up-b', id: 'up-2', delayMs: 1000 },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['created', 'extended', 'kept']);
    const raw = await http(server.url, 'POST', '/v1/jobs', {
      json: { topic: 'up-b', id: 'up-2', delayMs: 7000, onExists: 'replace' },
    });
    expect(raw.status).toBe(200);
    expect(raw.body.outcome).toBe('replaced');
  });

  it('refuses bad onExists and maxWaitMs with 400 naming the field, storing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ onExists: 'merge' }, 'onExists'],
      [{ onExists: 'extend', maxWaitMs: -1 }, 'maxWaitMs'],
      [{ onExists: 'extend', delayMs: 5000, maxWaitMs: 4000 }, 'maxWaitMs'],
      [{ onExists: 'extend', delayMs: '1h', maxWaitMs: '30m' }, 'maxWaitMs'],
      [{ maxWaitMs: 1000 }, 'maxWaitMs'],
      [{ onExists: 'replace', maxWaitMs: 1000 }, 'maxWaitMs'],
    ];
    for (const [fields, field] of cases) {
      const answer = await http(server.url, 'POST', '/v1/jobs', { json: { topic: 'up-c', id: 'up-bad', ...fields } });
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(answer.body.error.field).toBe(field);
    }
    const batch = await http(server.url, 'POST', '/v1/jobs/batch', {
      json: { jobs: [{ topic: 'up-c' }, { topic: 'up-c', id: 'up-bad', maxWaitMs: 10 }] },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.field).toBe('jobs[1].maxWaitMs');
    expect((await http(server.url, 'GET', '/v1/jobs/up-bad')).status).toBe(404);
  });
});
