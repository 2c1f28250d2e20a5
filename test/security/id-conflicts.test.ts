/**
 * Job ids are global and schedule ticks are delayq's own, on every store shape and every front end that
 * pushes (REST one and batch, gRPC Push and PushBatch, the seed-compatible pushes): a push of an id a job of
 * another topic holds is a conflict that tells nothing of that job; a tick's id cannot be pushed by anyone but
 * its schedule; another topic's job or schedule is answered as one that does not exist. docs/security.md.
 */
import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mysqlJournalDatabase, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { waitFor } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { bearer, call as grpcCall, callError, grpcClient, type GrpcClient } from '../grpc/grpc-client.js';
import { ADMIN, BILLING, ORDERS, SHAPES, call, startTenantNode, type TenantNode } from './support/tenant-node.js';

const SECRET = 'billing-secret-7c41';
const prefixes = prefixPool('ids');
afterAll(() => prefixes.sweep());

describe.each(Object.keys(SHAPES))('ids and ticks across tenants · %s', (shape) => {
  let node: TenantNode;
  let database: JournalDatabase | undefined;
  let grpc: GrpcClient;
  const as = (token: string) => (method: string, path: string, json?: unknown) =>
    call(node.url, token, method, path, json);
  const admin = as(ADMIN);
  const orders = as(ORDERS);
  const billing = as(BILLING);

  beforeAll(async () => {
    const { journal, overrides } = SHAPES[shape]!;
    if (journal === 'postgres') database = await postgresJournalDatabase();
    if (journal === 'mysql') database = await mysqlJournalDatabase();
    node = await startTenantNode(overrides(prefixes.next(), database));
    grpc = grpcClient(node.grpcTarget);
  });
  afterAll(async () => {
    grpc?.close();
    await node?.close();
    await database?.drop();
  });

  /** Nothing of billing's job in an answer: not its topic, not its body. */
  const tellsNothing = (text: string) => {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('billing');
  };

  it("a dedup key is its topic's: another topic's job with the key, or with the pushed id, is never answered", async () => {
    const key = { dedupKey: 'charge-1', dedupWindowMs: '1h' };
    const theirs = await billing('POST', '/v1/jobs', {
      topic: 'billing.dd',
      id: 'dd-bill',
      body: { secret: SECRET },
      ...key,
    });
    expect(theirs.status).toBe(201);
    // The same key on a topic of orders makes orders' own job; a second push answers that one.
    const mine = await orders('POST', '/v1/jobs', { topic: 'orders.dd', id: 'dd-ord', ...key });
    expect(mine).toMatchObject({ status: 201, body: { outcome: 'created' } });
    tellsNothing(mine.text);
    const again = await orders('POST', '/v1/jobs', { topic: 'orders.dd', id: 'dd-ord-2', ...key });
    expect(again).toMatchObject({ status: 200, body: { outcome: 'duplicate', job: { id: 'dd-ord' } } });
    // A keyed push of billing's id is the usual conflict, and leaves the key free for orders' next push.
    const taken = await orders('POST', '/v1/jobs', { topic: 'orders.dd2', id: 'dd-bill', ...key });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'id' } } });
    tellsNothing(taken.text);
    const fresh = await orders('POST', '/v1/jobs', { topic: 'orders.dd2', id: 'dd-ord-3', ...key });
    expect(fresh).toMatchObject({ status: 201, body: { outcome: 'created', job: { id: 'dd-ord-3' } } });
  });

  it("a push of an id another topic's job holds is a conflict that tells nothing of it, on every front end", async () => {
    // One job in the store, one due in 3 h (beyond a journal's 1 h horizon: held only by the journal there).
    const near = { topic: 'billing.inv', id: 'inv-1', body: { secret: SECRET } };
    const far = { topic: 'billing.inv', id: 'inv-far', runAt: Date.now() + 3 * 3_600_000, body: { secret: SECRET } };
    for (const job of [near, far]) expect((await billing('POST', '/v1/jobs', job)).status).toBe(201);

    for (const id of ['inv-1', 'inv-far']) {
      for (const token of [ORDERS, ADMIN]) {
        const one = await call(node.url, token, 'POST', '/v1/jobs', { topic: 'orders.x', id, body: 1 });
        expect(one).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'id' } } });
        tellsNothing(one.text);
      }
      const batch = await orders('POST', '/v1/jobs/batch', {
        jobs: [
          { topic: 'orders.x', id: `fresh-${id}` },
          { topic: 'orders.x', id },
        ],
      });
      expect(batch).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'jobs[1].id' } } });
      tellsNothing(batch.text);
      // The batch's other job is stored, as the message says: pushing it again answers it as existing.
      expect((await orders('POST', '/v1/jobs', { topic: 'orders.x', id: `fresh-${id}` })).status).toBe(200);

      const pushed = await callError(grpc, 'Push', { topic: 'orders.x', id }, bearer(ORDERS));
      expect(pushed).toMatchObject({ status: status.FAILED_PRECONDITION, code: 'E_CONFLICT', field: 'id' });
      tellsNothing(pushed.message);
      const batched = await callError(
        grpc,
        'PushBatch',
        {
          jobs: [
            { topic: 'orders.x', id: `grpc-${id}` },
            { topic: 'orders.x', id },
          ],
        },
        bearer(ORDERS),
      );
      expect(batched).toMatchObject({ status: status.FAILED_PRECONDITION, code: 'E_CONFLICT', field: 'jobs[1].id' });

      const mykit = await orders('POST', '/push', { topic: 'orders.x', id });
      expect(mykit.body).toMatchObject({ success: false });
      expect(mykit.body.message).toMatch(/^E_CONFLICT/);
      tellsNothing(mykit.text);
      const youzan = await orders('POST', '/youzan', { command: 'add', topic: 'orders.x', id, delay: 0, TTR: 30 });
      expect(youzan.body).toMatchObject({ success: false });
      expect(youzan.body.error).toMatch(/^E_CONFLICT/);
      tellsNothing(youzan.text);
    }

    // Billing's jobs are as they were, and a repeat in their own topic stays idempotent.
    for (const job of [near, far]) {
      const held = await admin('GET', `/v1/jobs/${job.id}`);
      expect(held.body.job).toMatchObject({ topic: 'billing.inv', body: { secret: SECRET }, attempts: 0 });
      const again = await billing('POST', '/v1/jobs', job);
      expect(again).toMatchObject({ status: 200, body: { created: false, job: { id: job.id, topic: 'billing.inv' } } });
    }
    const repeated = await grpcCall(grpc, 'Push', { topic: 'billing.inv', id: 'inv-1' }, bearer(BILLING));
    expect(repeated).toMatchObject({ created: false, job: { id: 'inv-1' } });
  });

  it("another topic's job by id is answered as an unknown id: no oracle of which ids exist", async () => {
    await billing('POST', '/v1/jobs', { topic: 'billing.get', id: 'get-1', body: { secret: SECRET } });
    const held = await orders('GET', '/v1/jobs/get-1?history=true');
    const unknown = await orders('GET', '/v1/jobs/get-0?history=true');
    expect(held.status).toBe(404);
    expect(held.text.replaceAll('get-1', 'get-0')).toBe(unknown.text);
    const grpcHeld = await callError(grpc, 'Get', { id: 'get-1' }, bearer(ORDERS));
    const grpcUnknown = await callError(grpc, 'Get', { id: 'get-0' }, bearer(ORDERS));
    expect(grpcHeld.status).toBe(status.NOT_FOUND);
    expect({ ...grpcHeld, message: grpcHeld.message.replaceAll('get-1', 'get-0') }).toEqual(grpcUnknown);
  });

  it('schedule ticks cannot be pushed by a caller, and fires lists only the jobs of its own topic', async () => {
    const name = `beat-${shape.replace(/\W+/g, '-')}`;
    expect((await admin('PUT', `/v1/schedules/${name}`, { topic: 'billing.beat', everyMs: 1000 })).status).toBe(201);
    const next: number[] = (await admin('GET', `/v1/schedules/${name}/fires?next=3&last=0`)).body.next;
    expect(next).toHaveLength(3);

    for (const tick of next) {
      const id = `${name}~${tick}`;
      for (const token of [ORDERS, ADMIN]) {
        const taken = await call(node.url, token, 'POST', '/v1/jobs', { topic: 'orders.x', id });
        expect(taken).toMatchObject({ status: 400, body: { error: { code: 'E_VALIDATION', field: 'id' } } });
      }
      const batch = await orders('POST', '/v1/jobs/batch', { jobs: [{ topic: 'orders.x', id }] });
      expect(batch).toMatchObject({ status: 400, body: { error: { code: 'E_VALIDATION', field: 'jobs[0].id' } } });
      expect(await callError(grpc, 'Push', { topic: 'orders.x', id }, bearer(ORDERS))).toMatchObject({
        status: status.INVALID_ARGUMENT,
        field: 'id',
      });
      expect((await orders('POST', '/push', { topic: 'orders.x', id })).body.message).toMatch(/^E_VALIDATION/);
      const youzan = await orders('POST', '/youzan', { command: 'add', topic: 'orders.x', id, delay: 0, TTR: 30 });
      expect(youzan.body.error).toMatch(/^E_VALIDATION/);
      // The old spelling of a tick's id is an ordinary id now: it takes nothing from the schedule.
      expect((await orders('POST', '/v1/jobs', { topic: 'orders.x', id: `${name}:${tick}` })).status).toBe(201);
    }

    // Every tick becomes its schedule's job, in its topic.
    for (const tick of next)
      await waitFor(
        async () => (await admin('GET', `/v1/jobs/${name}~${tick}`)).body.job?.topic === 'billing.beat',
        `the job of tick ${tick}`,
        10_000,
      );
    // The runner pushes a tick's job before it records the fire: the listing catches up a moment later.
    let fires = await admin('GET', `/v1/schedules/${name}/fires?next=0&last=3`);
    await waitFor(
      async () => {
        fires = await admin('GET', `/v1/schedules/${name}/fires?next=0&last=3`);
        return fires.body.last.length === next.length;
      },
      'the fires listing to hold every tick',
      10_000,
    );
    expect(fires.body.last.map((f: { jobId: string }) => f.jobId)).toEqual(
      [...next].reverse().map((t) => `${name}~${t}`),
    );
    expect(fires.body.last.every((f: { job: { topic: string } }) => f.job.topic === 'billing.beat')).toBe(true);

    // The orders token sees nothing of billing's schedule: it is as if there were none.
    const unknownName = `${name}-none`;
    for (const [method, suffix, json] of [
      ['GET', ''],
      ['GET', '/fires?next=3&last=3'],
      ['POST', '/pause', {}],
      ['POST', '/resume', {}],
      ['DELETE', ''],
    ] as const) {
      const held = await orders(method, `/v1/schedules/${name}${suffix}`, json);
      const none = await orders(method, `/v1/schedules/${unknownName}${suffix}`, json);
      expect({ suffix, status: held.status }).toEqual({ suffix, status: 404 });
      expect(held.text.replaceAll(name, unknownName)).toBe(none.text);
    }
    const taken = await orders('PUT', `/v1/schedules/${name}`, { topic: 'orders.beat', everyMs: 1000 });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'E_CONFLICT', field: 'name' } } });
    tellsNothing(taken.text);
    const listed = (await orders('GET', '/v1/schedules')).body.schedules.map((s: { name: string }) => s.name);
    expect(listed).not.toContain(name);
    const still = (await admin('GET', `/v1/schedules/${name}`)).body.schedule;
    expect(still).toMatchObject({ topic: 'billing.beat', paused: false, revision: 1 });
    expect((await admin('DELETE', `/v1/schedules/${name}`)).status).toBe(200);
  });
});
