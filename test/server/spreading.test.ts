import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { spreadOffsetMs } from '../../src/core/spread.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => server.close());

describe('spreadMs on a push', () => {
  it('spreads 1000 jobs due at one instant over the window: no 1 s bucket holds more than twice the mean', async () => {
    const due = Date.now() + 3_600_000;
    const jobs = Array.from({ length: 1000 }, (_, i) => ({
      topic: 'spread-a',
      id: `spread-a-${i}`,
      runAt: due,
      spreadMs: 10_000,
    }));
    const answer = await http(server.url, 'POST', '/v1/jobs/batch', { json: { jobs } });
    expect(answer.status).toBe(200);
    const counts = new Array<number>(10).fill(0);
    for (const { job } of answer.body.results as { job: { id: string; runAt: number } }[]) {
      const offset = job.runAt - due;
      expect(offset).toBe(spreadOffsetMs(job.id, 10_000));
      counts[Math.floor(offset / 1000)]!++;
    }
    expect(counts.reduce((a, b) => a + b)).toBe(1000);
    expect(Math.max(...counts)).toBeLessThanOrEqual(200);
    // the store holds them so: the due-time histogram sees the same spread
    const histogram = await http(
      server.url,
      'GET',
      `/v1/stats/due?topic=spread-a&from=${due}&to=${due + 10_000}&bucketMs=1000`,
    );
    expect(histogram.body.buckets.map((b: { count: number }) => b.count)).toEqual(counts);
  });

  it('gives the same id the same offset: a repeated push lands on the same instant', async () => {
    const due = Date.now() + 3_600_000;
    const one = await client.push({ topic: 'spread-b', id: 'spread-same', runAt: due, spreadMs: 60_000 });
    const again = await client.push({ topic: 'spread-b', id: 'spread-same', runAt: due, spreadMs: 60_000 });
    expect(again.job.runAt).toBe(one.job.runAt);
    await client.cancel('spread-same');
    const other = await http(server.url, 'POST', '/v1/jobs', {
      json: { topic: 'spread-c', id: 'spread-same-2', runAt: due, spreadMs: 60_000 },
    });
    expect(one.job.runAt).toBe(due + spreadOffsetMs('spread-same', 60_000));
    expect(other.body.job.runAt).toBe(due + spreadOffsetMs('spread-same-2', 60_000));
  });

  it('spreads a push due now over the window from now, and spreadMs 0 changes nothing', async () => {
    const before = Date.now();
    const { job } = await client.push({ topic: 'spread-d', id: 'spread-now', spreadMs: 3_600_000 });
    const offset = spreadOffsetMs('spread-now', 3_600_000);
    expect(job.runAt - offset).toBeGreaterThanOrEqual(before);
    expect(job.state).toBe(offset > 0 ? 'delayed' : 'ready');
    const plain = await client.push({ topic: 'spread-d', id: 'spread-zero', delayMs: 60_000, spreadMs: 0 });
    expect(plain.job.runAt - plain.job.createdAt).toBe(60_000);
  });

  it('with onExists extend, the debounced due time carries the same offset, and maxWaitMs weighs the delay asked', async () => {
    const push = (delayMs: number) =>
      http(server.url, 'POST', '/v1/jobs', {
        json: {
          topic: 'spread-f',
          id: 'spread-deb',
          delayMs,
          spreadMs: 10_000,
          onExists: 'extend',
          maxWaitMs: 120_000,
        },
      });
    const first = await push(60_000);
    expect(first.status).toBe(201);
    expect(first.body.job.runAt - first.body.job.createdAt).toBe(60_000 + spreadOffsetMs('spread-deb', 10_000));
    const later = await push(90_000);
    expect(later.body.outcome).toBe('extended');
    expect(later.body.job.runAt - Date.now()).toBeGreaterThan(80_000 + spreadOffsetMs('spread-deb', 10_000));
    const exact = await http(server.url, 'POST', '/v1/jobs', {
      json: {
        topic: 'spread-f',
        id: 'spread-deb-2',
        delayMs: 5000,
        spreadMs: 10_000,
        onExists: 'extend',
        maxWaitMs: 5000,
      },
    });
    expect(exact.status).toBe(201);
  });

  it.each([
    [-1, 'spreadMs'],
    [1.5, 'spreadMs'],
    ['10s', 'spreadMs'],
    [86_400_001, 'spreadMs'],
  ])('refuses spreadMs %j with 400 naming the field, storing nothing', async (spreadMs, field) => {
    const single = await http(server.url, 'POST', '/v1/jobs', {
      json: { topic: 'spread-e', id: 'spread-bad', spreadMs },
    });
    expect(single.status).toBe(400);
    expect(single.body.error).toMatchObject({ code: 'E_VALIDATION', field });
    const batch = await http(server.url, 'POST', '/v1/jobs/batch', {
      json: {
        jobs: [
          { topic: 'spread-e', id: 'spread-ok' },
          { topic: 'spread-e', id: 'spread-bad', spreadMs },
        ],
      },
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.field).toBe(`jobs[1].${field}`);
    expect((await http(server.url, 'GET', '/v1/jobs/spread-ok')).status).toBe(404);
  });

  it('is in the OpenAPI document with its bounds', async () => {
    const doc = (await http(server.url, 'GET', '/openapi.json')).body;
    const push = doc.paths['/v1/jobs'].post.requestBody.content['application/json'].schema;
    expect(JSON.stringify(push)).toContain('spreadMs');
  });
});
