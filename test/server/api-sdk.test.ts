import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { DelayqError } from '../../src/core/errors.js';
import type { Reservation } from '../../src/core/job.js';
import { DelayqService, type ReserveRequest } from '../../src/service/service.js';
import { RESERVE_MAX_COUNT, RESERVE_MAX_WAIT_MS } from '../../src/protocol/reservation-schemas.js';
import { http, startServer, waitFor, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;
let seq = 0;
const topic = (name: string): string => `${name}-${++seq}`;

beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => server.close());

describe('REST API through the SDK, over a real listening server', () => {
  it('applies one reserve limit in the HTTP schema and in the service (core/limits.ts)', async () => {
    const over = { topics: ['limits'], count: RESERVE_MAX_COUNT + 1 };
    await expect(client.reserve(over)).rejects.toMatchObject({ code: 'E_VALIDATION', field: 'count' });
    await expect(server.service.reserve(over)).rejects.toMatchObject({ code: 'E_VALIDATION', field: 'count' });
    const tooLong = { topics: ['limits'], waitMs: RESERVE_MAX_WAIT_MS + 1 };
    await expect(server.service.reserve(tooLong)).rejects.toMatchObject({ code: 'E_VALIDATION', field: 'waitMs' });
  });

  it('pushes, gets with history, reserves, touches and finishes a job', async () => {
    const t = topic('orders');
    const pushed = await client.push({ topic: t, id: 'order-1', body: { orderNo: 42 }, tag: 'eu', bizKey: 'o42' });
    expect(pushed.created).toBe(true);
    expect(pushed.job).toMatchObject({ id: 'order-1', topic: t, state: 'ready', body: { orderNo: 42 }, attempts: 0 });

    const again = await client.push({ topic: t, id: 'order-1', body: { other: true } });
    expect(again.created).toBe(false);
    expect(again.job.body).toEqual({ orderNo: 42 });

    const [reservation, ...none] = await client.reserve({ topics: [t], count: 5 });
    expect(none).toHaveLength(0);
    expect(reservation!.job).toMatchObject({ id: 'order-1', state: 'reserved', attempts: 1 });
    const touched = await client.touch('order-1', reservation!.token, 60_000);
    expect(touched.deadlineAt).toBeGreaterThan(reservation!.deadlineAt);
    const finished = await client.finish('order-1', reservation!.token);
    expect(finished.state).toBe('finished');

    const { job, history } = await client.getWithHistory('order-1');
    expect(job.state).toBe('finished');
    expect(history.map((h) => h.event)).toEqual(['push', 'reserve', 'finish']);
    expect((await client.history('order-1')).length).toBe(3);
  });

  it('pushes a batch, lists it by topic with a cursor, and counts it in stats', async () => {
    const t = topic('batch');
    const results = await client.pushBatch(
      Array.from({ length: 5 }, (_, i) => ({ topic: t, id: `${t}-${i}`, delayMs: '1h', body: i })),
    );
    expect(results.every((r) => r.created && r.job.state === 'delayed')).toBe(true);
    const first = await client.list({ topic: t, limit: 3 });
    expect(first.jobs.map((j) => j.id)).toEqual([`${t}-0`, `${t}-1`, `${t}-2`]);
    const second = await client.list({ topic: t, limit: 3, cursor: first.next! });
    expect(second.jobs.map((j) => j.id)).toEqual([`${t}-3`, `${t}-4`]);
    expect(second.next).toBeNull();
    const stats = (await client.stats()).find((s) => s.topic === t);
    expect(stats?.counts.delayed).toBe(5);
    expect(stats?.nextDueAt).toBeGreaterThan(Date.now());
  });

  it("over node:http (the option `http: 'node'`, the CLI's) answers and refuses as over the pool, events too", async () => {
    const t = topic('node-http');
    const node = new DelayqClient({ url: `${server.url}/`, http: 'node', coalescePushes: false });
    try {
      expect((await node.push({ topic: t, id: `${t}-1`, body: { a: 'é' } })).job.body).toEqual({ a: 'é' });
      expect((await node.get(`${t}-1`)).topic).toBe(t);
      await expect(node.get('no-such-job')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
      await expect(node.push({ topic: '-bad' })).rejects.toMatchObject({ code: 'E_VALIDATION', field: 'topic' });
      const [r] = await node.reserve({ topics: [t] });
      await node.finish(r!.job.id, r!.token);
      // A job that ended before its stream opened gets its ending event, then the stream ends.
      const events = [];
      for await (const e of node.jobEvents(`${t}-1`)) events.push(e);
      expect(events).toMatchObject([{ event: 'finished', id: `${t}-1` }]);
    } finally {
      await node.close();
    }
  });

  it('a cancel says whether the job had gone out; a repeated finish answers the job again', async () => {
    const t = topic('out');
    await client.push({ topic: t, id: `${t}-a` });
    await client.push({ topic: t, id: `${t}-b`, priority: -1 });
    const [first, second] = await client.reserve({ topics: [t], count: 2 });
    expect([first!.job.id, second!.job.id]).toEqual([`${t}-b`, `${t}-a`]); // priority first
    expect(await client.cancel(`${t}-a`)).toMatchObject({ job: { state: 'cancelled' }, dispatched: true, attempts: 1 });
    const done = await client.finish(`${t}-b`, first!.token);
    expect(done.state).toBe('finished');
    // The answer was lost: the same finish again is a 200 with the same job.
    expect(await client.finish(`${t}-b`, first!.token)).toMatchObject({
      id: `${t}-b`,
      state: 'finished',
      finishedAt: done.finishedAt,
    });
    const stale = await client.finish(`${t}-b`, second!.token).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: 'E_WRONG_STATE' });
  });

  it('cancels and reschedules', async () => {
    const t = topic('resched');
    await client.push({ topic: t, id: `${t}-a`, delayMs: '1h' });
    const moved = await client.reschedule(`${t}-a`, { delayMs: 0 });
    expect(moved.state).toBe('ready');
    const cancelled = await client.cancel(`${t}-a`, 'customer paid');
    expect(cancelled).toMatchObject({ job: { state: 'cancelled' }, dispatched: false, attempts: 0 });
    const error = await client.cancel(`${t}-a`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DelayqError);
    expect(error).toMatchObject({ code: 'E_WRONG_STATE' });
  });

  it('fails a job into a retry, then buries it and redrives it', async () => {
    const t = topic('fail');
    await client.push({ topic: t, id: `${t}-x`, retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 } } });
    const [first] = await client.reserve({ topics: [t] });
    const retried = await client.fail(`${t}-x`, first!.token, { error: 'smtp timeout' });
    expect(retried.decision.action).toBe('retry');
    expect(retried.job.lastError).toBe('smtp timeout');
    await waitFor(async () => (await client.get(`${t}-x`)).state === 'ready', 'the retry to become ready');
    const [second] = await client.reserve({ topics: [t] });
    const buried = await client.fail(`${t}-x`, second!.token, { error: 'still failing' });
    expect(buried).toMatchObject({ decision: { action: 'bury' }, job: { state: 'dead', attempts: 2 } });
    expect((await client.listDead(t)).jobs.map((j) => j.id)).toEqual([`${t}-x`]);
    expect(await client.redrive({ topic: t })).toBe(1);
    expect((await client.get(`${t}-x`)).state).toBe('ready');
  });

  it('turns error answers back into DelayqError with the same code and field', async () => {
    const notFound = await client.get('no-such-job').catch((e: unknown) => e);
    expect(notFound).toMatchObject({ code: 'E_NOT_FOUND' });
    const invalid = await client.push({ topic: 'bad topic!' }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ code: 'E_VALIDATION', field: 'topic' });
    const t = topic('stale');
    await client.push({ topic: t, id: `${t}-1` });
    const [r] = await client.reserve({ topics: [t] });
    await client.release(`${t}-1`, r!.token);
    const stale = await client.finish(`${t}-1`, r!.token).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(DelayqError);
    expect(stale).toMatchObject({ code: 'E_WRONG_STATE' });
    const unreachable = await new DelayqClient({ url: 'http://127.0.0.1:1' }).health().catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ code: 'E_STORE_UNAVAILABLE' });
  });

  it('long-polls: a waiting reserve answers as soon as a job is pushed', async () => {
    const t = topic('longpoll');
    const waiting = client.reserve({ topics: [t], waitMs: 20_000 });
    await waitFor(() => server.service.waitingConsumers > 0, 'the long-poll to wait');
    const startedAt = Date.now();
    await client.push({ topic: t, id: `${t}-1`, body: 'hello' });
    const [reservation] = await waiting;
    expect(reservation!.job.id).toBe(`${t}-1`);
    expect(Date.now() - startedAt).toBeLessThan(5000);
  });

  it('long-polls: answers empty after waitMs when nothing comes', async () => {
    const t = topic('empty');
    const startedAt = Date.now();
    expect(await client.reserve({ topics: [t], waitMs: 200 })).toEqual([]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(190);
  });

  it('stops waiting when the client aborts, so a job pushed afterwards goes to the next consumer', async () => {
    const t = topic('abort-wait');
    const controller = new AbortController();
    const gone = client
      .reserve({ topics: [t], waitMs: 30_000 }, { signal: controller.signal })
      .catch((e: unknown) => e);
    await waitFor(() => server.service.waitingConsumers > 0, 'the long-poll to wait');
    controller.abort();
    expect(await gone).toMatchObject({ name: 'AbortError' });
    await waitFor(() => server.service.waitingConsumers === 0, 'the server to drop the waiter');
    await client.push({ topic: t, id: `${t}-1` });
    const [next] = await client.reserve({ topics: [t] });
    expect(next?.job).toMatchObject({ id: `${t}-1`, attempts: 1 });
  });

  it("accepts the README's curl tour as curl sends it (cancel without a body, durations as text)", async () => {
    const pushed = await http(server.url, 'POST', '/v1/jobs', {
      json: { topic: 'order-close', id: 'order-A1', delayMs: '30m', body: { orderNo: 'A1' } },
    });
    expect(pushed.status).toBe(201);
    expect(pushed.body.job.runAt - pushed.body.job.createdAt).toBe(30 * 60_000);
    const cancelled = await fetch(`${server.url}/v1/jobs/order-A1/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { job: { state: string } }).job.state).toBe('cancelled');
    const withHistory = await http(server.url, 'GET', '/v1/jobs/order-A1?history=true');
    expect(withHistory.body.history.map((h: { event: string }) => h.event)).toEqual(['push', 'cancel']);
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(openapi.openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining(['/v1/jobs', '/v1/reserve', '/v1/jobs/{id}/finish', '/push', '/youzan']),
    );
    const docs = await fetch(`${server.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });
});

/** Holds reserve results until released, to cut the connection between the reservation and the answer. */
class GatedService extends DelayqService {
  gate: Promise<void> = Promise.resolve();
  reserved: Reservation[] = [];
  override async reserve(request: ReserveRequest, signal?: AbortSignal): Promise<Reservation[]> {
    const result = await super.reserve(request, signal);
    this.reserved.push(...result);
    await this.gate;
    return result;
  }
}

/** Ways to reserve over HTTP: the REST long-poll and the seed endpoints, all tied to the connection. */
const reserveRoutes: Array<{ name: string; send(url: string, signal: AbortSignal): Promise<unknown> }> = [
  {
    name: 'POST /v1/reserve',
    send: (url, signal) => new DelayqClient({ url }).reserve({ topics: ['gone'], waitMs: 10_000 }, { signal }),
  },
  { name: 'mykit GET /get/{topic}', send: (url, signal) => fetch(`${url}/get/gone?waitMs=10000`, { signal }) },
  {
    name: 'Youzan pop',
    send: (url, signal) =>
      fetch(`${url}/youzan`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"command":"pop","topic":"gone"}',
        signal,
      }),
  },
];

describe('a consumer that disconnects after its jobs were reserved', () => {
  for (const route of reserveRoutes) {
    it(`gets its reservation released at once, not after the TTR (${route.name})`, async () => {
      let open!: () => void;
      let gated!: GatedService;
      const gatedServer = await startServer({
        wrapService: (service) => {
          gated = new GatedService({ store: service.store, nodeId: 'gated' });
          gated.gate = new Promise<void>((resolve) => (open = resolve));
          return gated;
        },
      });
      try {
        const sockets: import('node:net').Socket[] = [];
        gatedServer.app.server.on('connection', (socket) => sockets.push(socket));
        await gatedServer.service.push({ topic: 'gone', id: 'gone-1', ttrMs: 600_000 });
        const controller = new AbortController();
        const request = route.send(gatedServer.url, controller.signal).catch((e: unknown) => e);
        await waitFor(() => gated.reserved.length === 1, 'the job to be reserved for the request');
        expect((await gatedServer.service.get('gone-1')).state).toBe('reserved');
        controller.abort();
        expect(await request).toMatchObject({ name: 'AbortError' });
        await waitFor(() => sockets.some((s) => s.destroyed), 'the server to see the disconnect');
        open();
        await waitFor(async () => (await gatedServer.service.get('gone-1')).state === 'ready', 'the release');
        const job = await gatedServer.service.get('gone-1');
        expect(job.attempts).toBe(0);
        expect((await gatedServer.service.history('gone-1')).map((h) => h.event)).toEqual([
          'push',
          'reserve',
          'release',
        ]);
      } finally {
        open();
        await gatedServer.close();
      }
    });
  }
});
