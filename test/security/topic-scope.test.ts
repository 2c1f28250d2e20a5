import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ORDERS_TOKEN, bearer, startSecureServer, type SecureServer } from './support/secure-server.js';

/**
 * A token limited to `orders.` topics, on every topic-bearing route: it may act on orders.* jobs. Naming a
 * billing.* topic is refused (403 E_FORBIDDEN, nothing changed): push, batch, reserve, stats, dead letters,
 * purge. A billing.* job addressed by id (get/history/cancel/reschedule/run-now/touch/finish/fail/release, redrive,
 * the seed-compatible routes) is answered exactly as an id no job has (404), and lists without a topic show
 * its own topics only. test/security/tenant-isolation.test.ts walks every operation.
 */
let server: SecureServer;
let n = 0;
const uniq = (prefix: string) => `${prefix}${++n}-${Math.random().toString(36).slice(2, 7)}`;

async function call(token: string | null, method: string, path: string, json?: unknown) {
  const response = await fetch(server.url + path, {
    method,
    headers: { ...(token ? bearer(token) : {}), ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}
const admin = (method: string, path: string, json?: unknown) => call(ADMIN_TOKEN, method, path, json);
const scoped = (method: string, path: string, json?: unknown) => call(ORDERS_TOKEN, method, path, json);

function expectForbidden(answer: { status: number; body: any }): void {
  expect(answer.status).toBe(403);
  const code = answer.body.error?.code ?? answer.body.error ?? answer.body.message;
  expect(code).toMatch(/E_FORBIDDEN/);
}

/**
 * A seed-compatible call on another topic's job answers as on an id no job has (the seeds' 200 with
 * `success: false` and E_NOT_FOUND), word for word but the id.
 */
async function expectAsUnknown(id: string, call: (id: string) => Promise<{ status: number; body: any }>) {
  const answer = await call(id);
  const unknown = await call('no-such-job');
  expect(JSON.stringify(answer.body)).toMatch(/E_NOT_FOUND/);
  expect(answer.status).toBe(unknown.status);
  expect(JSON.stringify(answer.body).replaceAll(id, 'no-such-job')).toBe(JSON.stringify(unknown.body));
}

/** A job of `topic` pushed by the admin, reserved so that token-fenced routes have a live token. */
async function reservedJob(topic: string): Promise<{ id: string; token: string }> {
  const id = uniq('job-');
  expect((await admin('POST', '/v1/jobs', { topic, id, body: { secret: 'billing data' } })).status).toBe(201);
  const reserved = await admin('POST', '/v1/reserve', { topics: [topic], count: 1 });
  return { id, token: reserved.body.reservations[0].token };
}

beforeAll(async () => {
  server = await startSecureServer(7602);
});
afterAll(() => server.close());

describe('topic-scoped tokens', () => {
  it('push and batch: own topics pass, any other topic is refused and nothing is stored', async () => {
    const own = uniq('orders.');
    const other = uniq('billing.');
    expect((await scoped('POST', '/v1/jobs', { topic: own, id: uniq('o-') })).status).toBe(201);
    expectForbidden(await scoped('POST', '/v1/jobs', { topic: other, id: 'never-1' }));
    expectForbidden(await scoped('POST', '/v1/jobs', { topic: 'orders', id: 'never-2' })); // a prefix match is on `orders.`, not `orders`
    const batch = await scoped('POST', '/v1/jobs/batch', {
      jobs: [
        { topic: own, id: 'mixed-1' },
        { topic: other, id: 'mixed-2' },
      ],
    });
    expectForbidden(batch);
    expect(batch.body.error.field).toBe('jobs[1].topic');
    for (const id of ['never-1', 'never-2', 'mixed-1', 'mixed-2'])
      expect((await admin('GET', `/v1/jobs/${id}`)).status).toBe(404);
  });

  it('reserve: refused if any topic asked for is not its own; the other topic keeps its job', async () => {
    const own = uniq('orders.');
    const other = uniq('billing.');
    await admin('POST', '/v1/jobs', { topic: other, id: uniq('b-') });
    expectForbidden(await scoped('POST', '/v1/reserve', { topics: [own, other], count: 10 }));
    expectForbidden(await scoped('POST', '/v1/reserve', { topics: [other] }));
    const stats = await admin('GET', `/v1/topics/${other}/stats`);
    expect(stats.body.counts.ready).toBe(1);
  });

  it('every job-addressed route answers a job of another topic as an unknown id and leaves it as it was', async () => {
    const other = uniq('billing.');
    const { id, token } = await reservedJob(other);
    const unknownId = uniq('no-such-');
    const routes: [string, string, unknown?][] = [
      ['GET', `/v1/jobs/${id}`],
      ['GET', `/v1/jobs/${id}?history=true`],
      ['GET', `/v1/jobs/${id}/history`],
      ['POST', `/v1/jobs/${id}/cancel`, {}],
      ['POST', `/v1/jobs/${id}/reschedule`, { delayMs: 1000 }],
      ['POST', `/v1/jobs/${id}/run-now`, {}],
      ['POST', `/v1/jobs/${id}/touch`, { token }],
      ['POST', `/v1/jobs/${id}/finish`, { token }],
      ['POST', `/v1/jobs/${id}/fail`, { token, error: 'x' }],
      ['POST', `/v1/jobs/${id}/release`, { token }],
    ];
    for (const [method, path, json] of routes) {
      const answer = await scoped(method, path, json);
      const unknown = await scoped(method, path.replace(id, unknownId), json);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
      // The same answer as for an id no job has, word for word but the id: nothing says it exists, nor where.
      expect(JSON.stringify(answer.body).replaceAll(id, unknownId)).toBe(JSON.stringify(unknown.body));
      expect(JSON.stringify(answer.body)).not.toContain('billing');
    }
    // Redrive by ids passes over ids it cannot act on: an unknown id, another topic's job.
    expect((await scoped('POST', '/v1/dead/redrive', { ids: [id] })).body).toEqual({ count: 0 });
    const job = (await admin('GET', `/v1/jobs/${id}`)).body.job;
    expect(job).toMatchObject({ state: 'reserved', attempts: 1 });
    expect((await admin('POST', `/v1/jobs/${id}/finish`, { token })).status).toBe(200); // the token was live all along
  });

  it('the same routes work for a job of its own topic (the 404s are about the topic)', async () => {
    const { id, token } = await reservedJob(uniq('orders.'));
    expect((await scoped('GET', `/v1/jobs/${id}?history=true`)).status).toBe(200);
    expect((await scoped('POST', `/v1/jobs/${id}/touch`, { token })).status).toBe(200);
    expect((await scoped('POST', `/v1/jobs/${id}/finish`, { token })).status).toBe(200);
  });

  it('stats and lists show only its topics; another topic named, and purge, are refused', async () => {
    const own = uniq('orders.');
    const other = uniq('billing.');
    await admin('POST', '/v1/jobs', { topic: own });
    await admin('POST', '/v1/jobs', { topic: other });
    const stats = await scoped('GET', '/v1/stats');
    const topics = stats.body.topics.map((t: { topic: string }) => t.topic);
    expect(topics).toContain(own);
    expect(topics.every((t: string) => t.startsWith('orders.'))).toBe(true);
    expect((await admin('GET', '/v1/stats')).body.topics.map((t: { topic: string }) => t.topic)).toContain(other);
    expectForbidden(await scoped('GET', `/v1/topics/${other}/stats`));
    expectForbidden(await scoped('GET', `/v1/jobs?topic=${other}`));
    const all = (await scoped('GET', '/v1/jobs?limit=1000')).body.jobs.map((j: { topic: string }) => j.topic);
    expect(all).toContain(own);
    expect(all.every((t: string) => t.startsWith('orders.'))).toBe(true);
    expect((await scoped('GET', `/v1/jobs?topic=${own}`)).body.jobs).toHaveLength(1);
    expectForbidden(await scoped('GET', `/v1/dead?topic=${other}`));
    expectForbidden(await scoped('POST', '/v1/dead/redrive', { topic: other }));
    expectForbidden(await scoped('POST', '/v1/purge', { before: Date.now() }));
  });

  it('seed-compatible routes: mykit push/get/finish/delete, restore and clearAll, Youzan add/pop/finish/delete', async () => {
    const own = uniq('orders.');
    const other = uniq('billing.');
    const { id } = await reservedJob(other);
    const pending = uniq('pend-');
    await admin('POST', '/v1/jobs', { topic: other, id: pending });
    expectForbidden(await scoped('POST', '/push', { topic: other, id: 'm-never' }));
    expectForbidden(await scoped('GET', `/get/${other}`));
    await expectAsUnknown(id, (x) => scoped('GET', `/finish?jobId=${x}`));
    await expectAsUnknown(pending, (x) => scoped('GET', `/delete?jobId=${x}`));
    for (const path of [
      '/reStore',
      '/reStore/x-1',
      '/reStoreJob?jobId=x-1',
      '/clearAll',
      '/%63learAll',
      '/%72eStore?expire=true',
    ]) {
      expectForbidden(await scoped('GET', path));
    }
    expect(server.restore.calls).toEqual([]); // not one call reached the journal
    expectForbidden(await scoped('POST', '/youzan', { command: 'add', topic: other, id: 'y-never' }));
    expectForbidden(await scoped('POST', '/youzan', { command: 'pop', topic: other }));
    await expectAsUnknown(id, (x) => scoped('POST', '/youzan', { command: 'finish', id: x }));
    await expectAsUnknown(pending, (x) => scoped('POST', '/youzan', { command: 'delete', id: x }));
    expect((await admin('GET', `/v1/jobs/${pending}`)).body.job.state).toBe('ready');
    expect((await admin('GET', `/v1/jobs/${id}`)).body.job.state).toBe('reserved');
    for (const never of ['m-never', 'y-never']) expect((await admin('GET', `/v1/jobs/${never}`)).status).toBe(404);
    // …and on its own topic they work.
    expect((await scoped('POST', '/push', { topic: own, id: 'm-own' })).body.success).toBe(true);
    expect((await scoped('POST', '/youzan', { command: 'pop', topic: own })).body.id).toBe('m-own');
    expect((await admin('GET', '/clearAll')).body.success).toBe(true);
    expect(server.restore.calls).toEqual(['clearAll']);
  });
  it('delivery bindings: a scoped token may bind its topic to a guarded webhook, but not weaken the guard or pick a broker', async () => {
    const own = uniq('orders.');
    const other = uniq('billing.');
    // Loopback on a port nothing listens on: stored, and the guard would refuse delivery anyway.
    const hook = { type: 'webhook', url: 'http://127.0.0.1:7699/hook' };
    expect((await scoped('PUT', `/v1/topics/${own}/sink`, hook)).status).toBe(200);
    const opened = await scoped('PUT', `/v1/topics/${own}/sink`, { ...hook, allowedRanges: ['loopback', 'private'] });
    expectForbidden(opened);
    expect(opened.body.error.field).toBe('allowedRanges');
    const broker = await scoped('PUT', `/v1/topics/${own}/sink`, { type: 'rabbitmq', url: 'amqp://127.0.0.1:7699' });
    expectForbidden(broker);
    expect(broker.body.error.field).toBe('type');
    expect((await admin('GET', `/v1/topics/${own}/sink`)).body.sink).not.toHaveProperty('allowedRanges', [
      'loopback',
      'private',
    ]);
    expectForbidden(await scoped('PUT', `/v1/topics/${other}/sink`, hook));
    expect((await admin('PUT', `/v1/topics/${other}/sink`, { ...hook, allowedRanges: ['loopback'] })).status).toBe(200);
    expectForbidden(await scoped('GET', `/v1/topics/${other}/sink`));
    expectForbidden(await scoped('DELETE', `/v1/topics/${other}/sink`));
    const listed = (await scoped('GET', '/v1/sinks')).body.bindings.map((r: { topic: string }) => r.topic);
    expect(listed).toContain(own);
    expect(listed).not.toContain(other);
    expect((await admin('DELETE', `/v1/topics/${other}/sink`)).body.deleted).toBe(true);
    expect((await scoped('DELETE', `/v1/topics/${own}/sink`)).body.deleted).toBe(true);
  });
});
