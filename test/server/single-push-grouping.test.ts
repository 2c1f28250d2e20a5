import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { startServer, type TestServer } from '../helpers/http-server.js';

/** Concurrent single pushes (one job per request, as a plain HTTP client sends them) share store calls. */
const prefixes = prefixPool('single-push');
let database: JournalDatabase | undefined;
afterAll(async () => {
  await prefixes.sweep();
  await database?.drop();
});

const redis = () => ({
  store: { kind: 'redis' },
  redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), partitions: 2 },
});
const stores: [string, () => Promise<Record<string, unknown>>][] = [
  ['SQLite', async () => ({})],
  ['Redis', async () => redis()],
  [
    'Redis + PostgreSQL journal',
    async () => {
      database ??= await postgresJournalDatabase();
      await database.truncate();
      return { ...redis(), journal: { kind: 'postgres', url: PG_URL, schema: database.name } };
    },
  ],
];

/** Counts the service's store calls of one operation (the delayq_store_call_seconds metric's source). */
function countCalls(server: TestServer, operation: string): { readonly n: number; stop(): void } {
  const counter = { n: 0, stop: () => server.service.events.off('storeCall', heard) };
  const heard = (c: { operation: string }) => {
    if (c.operation === operation) counter.n++;
  };
  server.service.events.on('storeCall', heard);
  return counter;
}

/** POST with node:http over keep-alive connections, as a plain client does; the status and the parsed answer. */
function post(agent: http.Agent, url: string, body: unknown): Promise<{ status: number; body: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v1/jobs`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe.each(stores)('single pushes grouped per turn (%s)', (_name, overrides) => {
  let server: TestServer;
  afterEach(() => server.close());

  it('answers 200 concurrent requests each its own way, in fewer store calls than requests', async () => {
    server = await startServer({ overrides: await overrides() });
    const { url } = server;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
    // Open the 200 keep-alive connections first, as a client in its steady state holds them.
    await Promise.all(Array.from({ length: 200 }, () => post(agent, url, { topic: 'warm-up' })));
    // An id already held by a job of the same topic (idempotent: 200) and by one of another topic (409).
    expect((await post(agent, url, { topic: 'orders', id: 'held-same', delayMs: 60_000 })).status).toBe(201);
    expect((await post(agent, url, { topic: 'other', id: 'held-other', delayMs: 60_000 })).status).toBe(201);
    const bodies: Record<string, unknown>[] = [];
    for (let i = 0; i < 200; i++) bodies.push({ topic: 'orders', id: `job-${i}`, delayMs: 60_000, body: { i } });
    bodies[10] = { topic: 'orders', id: 'job-10', delayMs: -5 }; // invalid: refused alone, naming its field
    bodies[20] = { topic: 'orders', id: 'job-19', delayMs: 60_000, body: { i: 20 } }; // the same id as request 19
    bodies[30] = { topic: 'orders', id: 'held-same', delayMs: 60_000 };
    bodies[40] = { topic: 'orders', id: 'held-other', delayMs: 60_000 };
    const calls = countCalls(server, 'pushMany');
    const answers = await Promise.all(bodies.map((b) => post(agent, url, b)));
    calls.stop();
    agent.destroy();

    expect(answers[10]!.status).toBe(400);
    expect(answers[10]!.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'delayMs' });
    expect(answers[40]!.status).toBe(409);
    expect(answers[40]!.body.error).toMatchObject({ code: 'E_CONFLICT', field: 'id' });
    expect(answers[30]!.status).toBe(200);
    expect(answers[30]!.body).toMatchObject({ created: false, job: { id: 'held-same', topic: 'orders' } });
    // Two requests with one id: one created it, the other is answered with that job.
    const twins = [answers[19]!, answers[20]!];
    expect(twins.map((a) => a.status).sort()).toEqual([200, 201]);
    for (const a of twins) expect(a.body.job).toMatchObject({ id: 'job-19' });
    expect(twins[0]!.body.job.body).toEqual(twins[1]!.body.job.body);
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(196);
    for (const [i, a] of answers.entries()) {
      if (a.status !== 201 || i === 19 || i === 20) continue;
      expect(a.body).toMatchObject({ created: true, job: { id: `job-${i}`, topic: 'orders', body: { i } } });
    }
    const stats = await server.service.topics.stats();
    expect(stats.find((t) => t.topic === 'orders')!.counts.delayed).toBe(1 + 196);
    // Grouped: the 196 created, 2 existing and 1 conflicting jobs went to the store in fewer calls than requests.
    expect(calls.n).toBeGreaterThan(0);
    expect(calls.n).toBeLessThan(100);
  });

  it('stores the single pushes of one event-loop turn in one store call, each caller its own answer', async () => {
    server = await startServer({ overrides: await overrides() });
    const { service } = server;
    await service.push({ topic: 'a', id: 'taken', delayMs: 60_000 });
    const calls = countCalls(server, 'pushMany');
    const pushes = Array.from({ length: 200 }, (_, i) =>
      service.push(i === 7 ? { topic: 'b', id: 'taken' } : { topic: 'a', id: `p-${i % 150}`, delayMs: 1000 }),
    );
    const invalid = service.push({ topic: 'a', delayMs: 'soon' as unknown as number });
    const settled = await Promise.allSettled([...pushes, invalid]);
    calls.stop();
    expect(calls.n).toBe(1);
    expect(settled[7]).toMatchObject({ status: 'rejected', reason: { code: 'E_CONFLICT', field: 'id' } });
    expect(settled[200]).toMatchObject({ status: 'rejected', reason: { code: 'E_VALIDATION', field: 'delayMs' } });
    const created = settled.filter((s) => s.status === 'fulfilled' && s.value.created);
    const existing = settled.filter((s) => s.status === 'fulfilled' && !s.value.created);
    expect(created).toHaveLength(150);
    expect(existing).toHaveLength(49);
    // The first push of an id created it; its repeats later in the same group answered that job.
    expect(settled[3]).toMatchObject({ status: 'fulfilled', value: { created: true } });
    expect(settled[153]).toMatchObject({ status: 'fulfilled', value: { created: false, job: { id: 'p-3' } } });
  });
});
