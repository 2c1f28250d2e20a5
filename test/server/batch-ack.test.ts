import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import { loadConfig } from '../../src/config.js';
import { LIMITS } from '../../src/core/limits.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const ALL = 'batch-ack-all-topics-secret';
const PAY_ONLY = 'batch-ack-pay-only-secret';
const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

const prefixes = prefixPool('ack');
let database: JournalDatabase;
beforeAll(async () => {
  database = await postgresJournalDatabase();
});
afterAll(async () => {
  await prefixes.sweep();
  await database.drop();
});

const shapes: Record<string, () => Record<string, unknown>> = {
  embedded: () => ({ store: { kind: 'sqlite' }, sqlite: { path: ':memory:' } }),
  redis: () => ({
    store: { kind: 'redis' },
    redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next(), partitions: 2 },
  }),
  'redis + postgresql journal': () => ({
    store: { kind: 'redis' },
    redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next() },
    journal: { kind: 'postgres', url: PG_URL, schema: database.name, restoreMode: 'manual' },
  }),
};

/** Batch acknowledgement over HTTP, on every shape the server runs in (CONTRACTS item 3). */
describe.each(Object.keys(shapes))('POST /v1/ack and reserve with acks · %s', (shape) => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;

  beforeEach(async () => {
    if (shape.includes('journal')) await database.truncate();
    const config = loadConfig({
      env: {},
      overrides: { ...shapes[shape]!(), auth: { tokens: [{ token: ALL }, { token: PAY_ONLY, topics: ['pay.'] }] } },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config);
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await closeGracefully(app, runtime, 100);
  });

  const push = async (topic: string, n: number, token = ALL): Promise<string[]> => {
    const res = await http(url, 'POST', '/v1/jobs/batch', {
      json: { jobs: Array.from({ length: n }, (_, i) => ({ topic, body: { i } })) },
      ...auth(token),
    });
    expect(res.status).toBe(200);
    return res.body.results.map((r: { job: { id: string } }) => r.job.id);
  };
  const reserve = async (topic: string, count: number, extra: Record<string, unknown> = {}, token = ALL) => {
    const res = await http(url, 'POST', '/v1/reserve', {
      json: { topics: [topic], count, waitMs: 2000, ...extra },
      ...auth(token),
    });
    expect(res.status).toBe(200);
    return res.body as { reservations: { job: { id: string }; token: string }[]; acks?: unknown[] };
  };
  const stateOf = async (id: string) => (await http(url, 'GET', `/v1/jobs/${id}`, auth(ALL))).body.job.state;

  it('settles each item on its own: a stale token inside the batch refuses that item only', async () => {
    const [staleId] = await push('pay.stale', 1);
    const first = (await reserve('pay.stale', 1, { ttrMs: 100 })).reservations[0]!;
    // The TTR lapses and the job is delivered again: the first token is now stale.
    let again: { job: { id: string }; token: string } | undefined;
    await waitFor(async () => {
      again = (await reserve('pay.stale', 1, { waitMs: 200 })).reservations[0];
      return again !== undefined;
    }, 'the lapsed job to be delivered again');
    expect(again!.job.id).toBe(staleId);

    await push('pay.mix', 4);
    const held = (await reserve('pay.mix', 4)).reservations;
    expect(held).toHaveLength(4);
    const [a, b, c, d] = held;
    const storeCalls: string[] = [];
    const heard = (call: { operation: string }) => storeCalls.push(call.operation);
    runtime.service.events.on('storeCall', heard);
    const res = await http(url, 'POST', '/v1/ack', {
      json: {
        acks: [
          { id: a!.job.id, token: a!.token, op: 'finish' },
          { id: staleId, token: first.token, op: 'finish' },
          { id: b!.job.id, token: b!.token, op: 'fail', error: 'boom', bury: true },
          { id: c!.job.id, token: c!.token, op: 'fail', retryDelayMs: 60_000 },
          { id: d!.job.id, token: d!.token, op: 'touch', ttrMs: 30_000 },
          { id: 'no-such-job', token: 'x', op: 'finish' },
        ],
      },
      ...auth(ALL),
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      { id: a!.job.id, op: 'finish', ok: true, state: 'finished' },
      {
        id: staleId,
        op: 'finish',
        ok: false,
        error: expect.objectContaining({ code: 'E_TOKEN_MISMATCH', field: 'acks[1].token' }),
      },
      { id: b!.job.id, op: 'fail', ok: true, state: 'dead' },
      { id: c!.job.id, op: 'fail', ok: true, state: 'delayed' },
      { id: d!.job.id, op: 'touch', ok: true, state: 'reserved' },
      {
        id: 'no-such-job',
        op: 'finish',
        ok: false,
        error: expect.objectContaining({ code: 'E_NOT_FOUND', field: 'acks[5].id' }),
      },
    ]);
    runtime.service.events.off('storeCall', heard);
    // The batch's finishes (the valid ones and the refused ones alike) went to the store in one call.
    expect(storeCalls.filter((op) => op === 'finishMany')).toHaveLength(1);
    expect(storeCalls).not.toContain('finish');
    expect(await stateOf(staleId!)).toBe('reserved'); // still held by the second delivery
    expect(await stateOf(a!.job.id)).toBe('finished');
    expect((await http(url, 'GET', `/v1/jobs/${b!.job.id}`, auth(ALL))).body.job.lastError).toBe('boom');

    // release (no delay) gives the job back at once; jobs: true carries the job
    const released = await http(url, 'POST', '/v1/ack', {
      json: { acks: [{ id: d!.job.id, token: d!.token, op: 'release' }], jobs: true },
      ...auth(ALL),
    });
    expect(released.body.results[0]).toMatchObject({
      id: d!.job.id,
      op: 'release',
      ok: true,
      state: 'ready',
      job: { id: d!.job.id, state: 'ready' },
    });
    // release with a delay: back to delayed, due after delayMs
    const again2 = (await reserve('pay.mix', 1)).reservations[0]!;
    const before = Date.now();
    const later = await http(url, 'POST', '/v1/ack', {
      json: { acks: [{ id: again2.job.id, token: again2.token, op: 'release', delayMs: 60_000 }], jobs: true },
      ...auth(ALL),
    });
    expect(later.body.results[0]).toMatchObject({ ok: true, state: 'delayed' });
    expect(later.body.results[0].job.runAt).toBeGreaterThanOrEqual(before + 59_000);
  });

  it('an item carries a finish result or a structured fail error; a result over the limit refuses that item only', async () => {
    const ids = await push('pay.outcome', 3);
    const held = (await reserve('pay.outcome', 3)).reservations;
    const tokenOf = (id: string) => held.find((r) => r.job.id === id)!.token;
    const res = await http(url, 'POST', '/v1/ack', {
      json: {
        acks: [
          { id: ids[0], token: tokenOf(ids[0]!), op: 'finish', result: { shipped: true } },
          { id: ids[1], token: tokenOf(ids[1]!), op: 'fail', error: { message: 'declined', code: 'D1', details: [1] } },
          { id: ids[2], token: tokenOf(ids[2]!), op: 'finish', result: 'x'.repeat(LIMITS.resultMaxBytes) },
        ],
      },
      ...auth(ALL),
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, true, false]);
    expect(res.body.results[2].error.field).toBe('acks[2].result');
    const outcome = async (id: string) => (await http(url, 'GET', `/v1/jobs/${id}`, auth(ALL))).body.outcome;
    expect(await outcome(ids[0]!)).toMatchObject({ result: { shipped: true } });
    expect(await outcome(ids[1]!)).toMatchObject({ error: { message: 'declined', code: 'D1', details: [1] } });
    expect(await stateOf(ids[2]!)).toBe('reserved');
  });

  it('is in the OpenAPI document: POST /v1/ack and the acks of POST /v1/reserve', async () => {
    const doc = (await http(url, 'GET', '/openapi.json')).body;
    const ack = doc.paths['/v1/ack'].post;
    expect(ack.requestBody.content['application/json'].schema.properties.acks.maxItems).toBe(LIMITS.ackBatchMax);
    expect(ack.requestBody.content['application/json'].schema.properties.acks.items.properties.op).toBeDefined();
    expect(ack.responses['200'].content['application/json'].schema.properties.results).toBeDefined();
    const reserve = doc.paths['/v1/reserve'].post;
    expect(reserve.requestBody.content['application/json'].schema.properties.acks.maxItems).toBe(LIMITS.ackBatchMax);
    expect(reserve.responses['200'].content['application/json'].schema.properties.acks).toBeDefined();
  });

  it('refuses a batch over the item limit with a 400 naming acks, and settles none of it', async () => {
    const [id] = await push('pay.limit', 1);
    const r = (await reserve('pay.limit', 1)).reservations[0]!;
    const acks = Array.from({ length: LIMITS.ackBatchMax + 1 }, () => ({ id, token: r.token, op: 'finish' }));
    const res = await http(url, 'POST', '/v1/ack', { json: { acks }, ...auth(ALL) });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'acks' });
    const viaReserve = await http(url, 'POST', '/v1/reserve', { json: { topics: ['pay.limit'], acks }, ...auth(ALL) });
    expect(viaReserve.status).toBe(400);
    expect(viaReserve.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'acks' });
    expect(await stateOf(id!)).toBe('reserved');
    const badOp = await http(url, 'POST', '/v1/ack', {
      json: { acks: [{ id, token: r.token, op: 'delete' }] },
      ...auth(ALL),
    });
    expect(badOp.status).toBe(400);
    expect(badOp.body.error.field).toMatch(/^acks\[0\]/);
  });

  it('checks the token scope per item: a job of another topic is answered as an unknown id, the rest settle', async () => {
    const [payId] = await push('pay.scope', 1);
    const [mailId] = await push('mail', 1);
    const pay = (await reserve('pay.scope', 1)).reservations[0]!;
    const mail = (await reserve('mail', 1)).reservations[0]!;
    const res = await http(url, 'POST', '/v1/ack', {
      json: {
        acks: [
          { id: payId, token: pay.token, op: 'finish' },
          { id: mailId, token: mail.token, op: 'finish' },
        ],
      },
      ...auth(PAY_ONLY),
    });
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toEqual({ id: payId, op: 'finish', ok: true, state: 'finished' });
    // Exactly the answer of an id no job has: nothing says the job exists, nor where.
    expect(res.body.results[1]).toEqual({
      id: mailId,
      op: 'finish',
      ok: false,
      error: { code: 'E_NOT_FOUND', field: 'acks[1].id', message: `job ${mailId} does not exist (or was purged)` },
    });
    const unknown = await http(url, 'POST', '/v1/ack', {
      json: { acks: [{ id: 'no-such-job', token: mail.token, op: 'finish' }] },
      ...auth(PAY_ONLY),
    });
    expect(unknown.body.results[0].error).toEqual({
      code: 'E_NOT_FOUND',
      field: 'acks[0].id',
      message: 'job no-such-job does not exist (or was purged)',
    });
    expect(await stateOf(mailId!)).toBe('reserved');
  });

  it('reserve carries the previous batch acks: settled first, answered in acks, then the next jobs', async () => {
    await push('pay.steady', 5);
    const batch1 = (await reserve('pay.steady', 3)).reservations;
    expect(batch1).toHaveLength(3);
    const acks = batch1.map((r) => ({ id: r.job.id, token: r.token, op: 'finish' }));
    const next = await reserve('pay.steady', 3, { acks });
    expect(next.acks).toEqual(batch1.map((r) => ({ id: r.job.id, op: 'finish', ok: true, state: 'finished' })));
    expect(next.reservations).toHaveLength(2);
    expect(next.reservations.map((r) => r.job.id).some((id) => batch1.some((b) => b.job.id === id))).toBe(false);
    // without acks the answer has none (the seed shape stays as it was)
    const plain = await reserve('pay.steady', 1, { waitMs: 0 });
    expect(plain).toEqual({ reservations: [] });
    // a scoped token reserving its own topic still has foreign acks refused per item, as unknown ids
    const [mailId] = await push('mail', 1);
    const mail = (await reserve('mail', 1)).reservations[0]!;
    const scoped = await reserve(
      'pay.steady',
      1,
      { waitMs: 0, acks: [{ id: mailId, token: mail.token, op: 'finish' }] },
      PAY_ONLY,
    );
    expect(scoped.acks).toEqual([
      { id: mailId, op: 'finish', ok: false, error: expect.objectContaining({ code: 'E_NOT_FOUND' }) },
    ]);
  });

  it('reserve carrying a stale token among its acks refuses that item only and still reserves', async () => {
    const [staleId] = await push('pay.carry-stale', 1);
    const first = (await reserve('pay.carry-stale', 1, { ttrMs: 100 })).reservations[0]!;
    await waitFor(
      async () => (await reserve('pay.carry-stale', 1, { waitMs: 200 })).reservations.length === 1,
      'the lapsed job to be delivered again',
    );
    await push('pay.carry', 3);
    const held = (await reserve('pay.carry', 2)).reservations;
    const next = await reserve('pay.carry', 2, {
      acks: [
        { id: held[0]!.job.id, token: held[0]!.token, op: 'finish' },
        { id: staleId, token: first.token, op: 'finish' },
        { id: held[1]!.job.id, token: held[1]!.token, op: 'fail', bury: true },
      ],
    });
    expect(next.acks).toEqual([
      { id: held[0]!.job.id, op: 'finish', ok: true, state: 'finished' },
      {
        id: staleId,
        op: 'finish',
        ok: false,
        error: expect.objectContaining({ code: 'E_TOKEN_MISMATCH', field: 'acks[1].token' }),
      },
      { id: held[1]!.job.id, op: 'fail', ok: true, state: 'dead' },
    ]);
    expect(next.reservations).toHaveLength(1); // the third job of pay.carry
    expect(await stateOf(staleId!)).toBe('reserved');
  });

  it('the SDK Worker carries each batch of finishes on its next reserve: no request of its own for them', async () => {
    const requests = { carried: 0, acked: 0 };
    class CountingClient extends DelayqClient {
      override reserveAndAck(
        ...args: Parameters<DelayqClient['reserveAndAck']>
      ): ReturnType<DelayqClient['reserveAndAck']> {
        requests.carried += args[0].acks?.length ?? 0;
        return super.reserveAndAck(...args);
      }
      override ack(...args: Parameters<DelayqClient['ack']>): ReturnType<DelayqClient['ack']> {
        requests.acked += args[0].length;
        return super.ack(...args);
      }
    }
    const client = new CountingClient({ url, token: ALL });
    const ids = await push('pay.worker', 30);
    const errors: unknown[] = [];
    let handled = 0;
    const worker = new Worker(client, {
      handlers: { 'pay.worker': () => void handled++ },
      concurrency: 10,
      waitMs: 1000,
      onError: (err) => errors.push(err),
    }).start();
    await waitFor(() => handled === 30 && requests.carried === 30, 'thirty handled and their finishes carried');
    await worker.close();
    expect(errors).toEqual([]);
    expect(requests.acked).toBe(0);
    for (const id of ids) expect(await stateOf(id)).toBe('finished');
    await client.close();
  });

  it('the SDK: client.ack gives one result per item, client.reserveAndAck carries the previous batch', async () => {
    const client = new DelayqClient({ url, token: ALL });
    await push('pay.sdk', 4);
    const first = await client.reserve({ topics: ['pay.sdk'], count: 2 });
    const results = await client.ack(
      [
        { id: first[0]!.job.id, token: first[0]!.token, op: 'finish' },
        { id: first[1]!.job.id, token: 'not-the-token', op: 'finish' },
      ],
      { jobs: true },
    );
    expect(results[0]).toMatchObject({ ok: true, state: 'finished', job: { id: first[0]!.job.id } });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'E_TOKEN_MISMATCH', field: 'acks[1].token' } });
    const next = await client.reserveAndAck({
      topics: ['pay.sdk'],
      count: 2,
      acks: [{ id: first[1]!.job.id, token: first[1]!.token, op: 'finish' }],
    });
    expect(next.acks).toEqual([{ id: first[1]!.job.id, op: 'finish', ok: true, state: 'finished' }]);
    expect(next.reservations).toHaveLength(2);
    await client.close();
  });
});
