import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import type { WireJobEvent } from '../../src/protocol/job-event-schemas.js';
import { http, startServer, waitFor, type TestServer } from '../helpers/http-server.js';

const ADMIN = 'admin-token-0123456789';
const ORDERS = 'orders-token-0123456789';

let server: TestServer;
let client: DelayqClient;
beforeAll(async () => {
  server = await startServer({
    overrides: {
      auth: { tokens: [{ token: ADMIN }, { token: ORDERS, topics: ['orders.'] }] },
      events: { heartbeatMs: 200 },
    },
  });
  client = new DelayqClient({ url: server.url, token: ADMIN });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

/** A raw SSE reader over fetch: the text as it arrives, until `until` holds or the stream ends. */
async function readStream(
  path: string,
  until: (text: string) => boolean,
  options: { token?: string; lastEventId?: string; onOpen?: () => Promise<void> } = {},
): Promise<{ status: number; text: string; ended: boolean }> {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${options.token ?? ADMIN}` };
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  const response = await fetch(server.url + path, { headers, signal: controller.signal });
  if (response.status !== 200) return { status: response.status, text: await response.text(), ended: true };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  // The first chunk (the opening comment) says the follower is registered.
  text += decoder.decode((await reader.read()).value);
  let failed: unknown;
  const opened = options.onOpen?.().catch((err: unknown) => {
    failed = err;
    controller.abort();
  });
  try {
    while (!until(text)) {
      const { value, done } = await reader.read().catch((err: unknown) => {
        throw failed ?? err;
      });
      if (done) {
        ended = true;
        break;
      }
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await opened;
    controller.abort();
  }
  if (failed) throw failed;
  return { status: response.status, text, ended };
}

/** The `data:` JSON of every message named `event` in an SSE text. */
function dataOf(text: string, event: string): any[] {
  return text
    .split('\n\n')
    .filter((block) => block.split('\n').includes(`event: ${event}`))
    .map((block) =>
      JSON.parse(
        block
          .split('\n')
          .find((l) => l.startsWith('data: '))!
          .slice(6),
      ),
    );
}

async function reserveOne(topic: string) {
  const [r] = await client.reserve({ topics: [topic], waitMs: 2000 });
  return r!;
}

describe('job events over HTTP (embedded SQLite)', () => {
  it("a topic's follower sees finished with the result, failed and dead with the error, cancelled with the reason", async () => {
    const seen = await readStream('/v1/events?topic=ev-a', (text) => text.includes('event: cancelled'), {
      onOpen: async () => {
        await client.push({ topic: 'ev-a', id: 'ev-1', body: 1 });
        await client.push({ topic: 'ev-a', id: 'ev-2', body: 2, retry: { maxAttempts: 2, backoff: '100ms' } });
        await client.push({ topic: 'ev-other', id: 'ev-x', body: 0 });
        const r1 = await reserveOne('ev-a');
        await client.finish(r1.job.id, r1.token, { result: { paid: 12.5 } });
        const x = await reserveOne('ev-other');
        await client.finish(x.job.id, x.token);
        const r2 = await reserveOne('ev-a');
        await client.fail(r2.job.id, r2.token, { error: { message: 'declined', code: 'D1', details: { n: 1 } } });
        const r3 = await reserveOne('ev-a');
        await client.fail(r3.job.id, r3.token, { error: 'still declined' });
        await client.push({ topic: 'ev-a', id: 'ev-3', body: 3, delayMs: 60_000 });
        await client.cancel('ev-3', 'order paid');
      },
    });
    expect(seen.status).toBe(200);
    expect(dataOf(seen.text, 'finished')).toEqual([
      expect.objectContaining({ event: 'finished', id: 'ev-1', topic: 'ev-a', result: { paid: 12.5 } }),
    ]);
    expect(dataOf(seen.text, 'finished')[0].at).toBeTypeOf('number');
    expect(dataOf(seen.text, 'failed')).toEqual([
      expect.objectContaining({ id: 'ev-2', error: { message: 'declined', code: 'D1', details: { n: 1 } } }),
    ]);
    expect(dataOf(seen.text, 'dead')).toEqual([
      expect.objectContaining({ id: 'ev-2', error: { message: 'still declined', code: null } }),
    ]);
    expect(dataOf(seen.text, 'cancelled')).toEqual([
      expect.objectContaining({ id: 'ev-3', error: { message: 'order paid', code: null } }),
    ]);
    expect(seen.text).not.toContain('ev-x');
    expect(seen.text).toMatch(/^id: \d+$/m);
  });

  it('resumes after Last-Event-ID with what came since, and filters by event name', async () => {
    await client.push({ topic: 'ev-b', id: 'evb-1', body: 1 });
    const r1 = await reserveOne('ev-b');
    await client.finish(r1.job.id, r1.token, { result: 'one' });
    const first = await readStream('/v1/events?topic=ev-b', (t) => t.includes('evb-2'), {
      onOpen: async () => {
        await client.push({ topic: 'ev-b', id: 'evb-2', body: 2 });
        const r = await reserveOne('ev-b');
        await client.finish(r.job.id, r.token, { result: 'two' });
      },
    });
    const [two] = dataOf(first.text, 'finished');
    expect(two).toMatchObject({ id: 'evb-2', result: 'two' });
    await client.push({ topic: 'ev-b', id: 'evb-3', body: 3 });
    const r3 = await reserveOne('ev-b');
    await client.finish(r3.job.id, r3.token, { result: 'three' });
    await client.push({ topic: 'ev-b', id: 'evb-4', body: 4, delayMs: 60_000 });
    await client.cancel('evb-4');
    const resumed = await readStream('/v1/events?topic=ev-b&events=finished', (t) => t.includes('evb-3'), {
      lastEventId: two.eventId,
    });
    expect(dataOf(resumed.text, 'finished').map((e) => e.id)).toEqual(['evb-3']);
    expect(resumed.text).not.toContain('evb-4');
  });

  it("a job's stream ends with `end` after the job ends; one opened after the end gets it rebuilt", async () => {
    await client.push({ topic: 'ev-c', id: 'evc-1', body: 1 });
    const live = await readStream('/v1/jobs/evc-1/events', () => false, {
      onOpen: async () => {
        const r = await reserveOne('ev-c');
        await client.fail(r.job.id, r.token, { error: 'first try' });
        const again = await client.reserve({ topics: ['ev-c'], waitMs: 5000 });
        await client.finish('evc-1', again[0]!.token, { result: { ok: true } });
      },
    });
    expect(live.ended).toBe(true);
    expect(dataOf(live.text, 'failed')[0]).toMatchObject({ id: 'evc-1', error: { message: 'first try' } });
    expect(dataOf(live.text, 'finished')[0]).toMatchObject({ id: 'evc-1', result: { ok: true } });
    expect(dataOf(live.text, 'end')).toEqual([{ id: 'evc-1', state: 'finished' }]);

    const late = await readStream('/v1/jobs/evc-1/events', () => false);
    expect(late.ended).toBe(true);
    expect(dataOf(late.text, 'finished')[0]).toMatchObject({ id: 'evc-1', result: { ok: true } });
    expect(dataOf(late.text, 'finished')[0].eventId).toBeUndefined();
    expect(dataOf(late.text, 'end')).toEqual([{ id: 'evc-1', state: 'finished' }]);
  });

  it('a job that expires ends its stream with `expired`, then `end`', async () => {
    await client.push({ topic: 'ev-d', id: 'evd-1', body: 1, ttlMs: 100 });
    const stream = await readStream('/v1/jobs/evd-1/events', () => false);
    expect(dataOf(stream.text, 'expired')).toEqual([expect.objectContaining({ id: 'evd-1', topic: 'ev-d' })]);
    expect(dataOf(stream.text, 'end')).toEqual([{ id: 'evd-1', state: 'expired' }]);
  });

  it("a topic's follower sees `expired` when the timer expires a job whose ttl ran out", async () => {
    const seen = await readStream('/v1/events?topic=ev-e', (t) => t.includes('event: expired'), {
      onOpen: async () => {
        await client.push({ topic: 'ev-e', id: 'eve-1', body: 1, ttlMs: 100 });
      },
    });
    const [expired] = dataOf(seen.text, 'expired');
    expect(expired).toMatchObject({ event: 'expired', id: 'eve-1', topic: 'ev-e' });
    expect(expired.eventId).toMatch(/^\d+$/);
    expect((await client.get('eve-1')).state).toBe('expired');
  });

  it("a topic's follower sees `cancelled` for each job a bulk cancel by selector cancels, page after page", async () => {
    const ids = ['evg-1', 'evg-2', 'evg-3'];
    const seen = await readStream('/v1/events?topic=ev-g', (t) => dataOf(t, 'cancelled').length === ids.length, {
      onOpen: async () => {
        for (const id of ids) await client.push({ topic: 'ev-g', id, body: 1, delayMs: 60_000, bizKey: 'order-7' });
        await client.push({ topic: 'ev-g', id: 'evg-keep', body: 1, delayMs: 60_000, bizKey: 'order-8' });
        let cursor: string | undefined;
        do {
          const page = await client.bulk({
            action: 'cancel',
            selector: { topic: 'ev-g', bizKey: 'order-7' },
            reason: 'order paid',
            limit: 2,
            ...(cursor ? { cursor } : {}),
          });
          expect(page).not.toHaveProperty('cancelled');
          cursor = page.next ?? undefined;
        } while (cursor);
      },
    });
    const cancelled = dataOf(seen.text, 'cancelled');
    expect(cancelled.map((e) => e.id).sort()).toEqual(ids);
    for (const e of cancelled) expect(e).toMatchObject({ topic: 'ev-g', error: { message: 'order paid', code: null } });
    expect(seen.text).not.toContain('evg-keep');
  });

  it('refuses a bad topic, an unknown event name and a bad Last-Event-ID with 400 naming the field', async () => {
    const badTopic = await http(server.url, 'GET', '/v1/events?topic=bad%20topic', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(badTopic.status).toBe(400);
    expect(badTopic.body.error.field).toBe('topic');
    const noTopic = await http(server.url, 'GET', '/v1/events', { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(noTopic.status).toBe(400);
    expect(noTopic.body.error.field).toBe('topic');
    const badName = await http(server.url, 'GET', '/v1/events?topic=ev-a&events=finished,done', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(badName).toMatchObject({ status: 400, body: { error: { field: 'events' } } });
    const badId = await http(server.url, 'GET', '/v1/events?topic=ev-a', {
      headers: { authorization: `Bearer ${ADMIN}`, 'last-event-id': 'x1' },
    });
    expect(badId).toMatchObject({ status: 400, body: { error: { field: 'Last-Event-ID' } } });
    const noJob = await http(server.url, 'GET', '/v1/jobs/nope-1/events', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(noJob.status).toBe(404);
  });

  it("applies auth and topic scopes: no token 401, another topic 403, another topic's job 404", async () => {
    const anonymous = await http(server.url, 'GET', '/v1/events?topic=orders.eu');
    expect(anonymous.status).toBe(401);
    const scoped = await http(server.url, 'GET', '/v1/events?topic=ev-a', {
      headers: { authorization: `Bearer ${ORDERS}` },
    });
    expect(scoped).toMatchObject({ status: 403, body: { error: { code: 'E_FORBIDDEN', field: 'topic' } } });
    await client.push({ topic: 'ev-e', id: 'eve-1', body: 1 });
    const scopedJob = await http(server.url, 'GET', '/v1/jobs/eve-1/events', {
      headers: { authorization: `Bearer ${ORDERS}` },
    });
    expect(scopedJob).toMatchObject({ status: 404, body: { error: { code: 'E_NOT_FOUND' } } });
    const allowed = await readStream('/v1/events?topic=orders.eu', (t) => t.includes('heartbeat'), { token: ORDERS });
    expect(allowed.status).toBe(200);
  });

  it('the SDK iterator yields events, resumes after a dropped stream, and a job iterator ends with the job', async () => {
    const store = server.service.store.jobEvents as unknown as { followers: number };
    const got: WireJobEvent[] = [];
    const following = (async () => {
      for await (const e of client.events({ topic: 'ev-f' })) {
        got.push(e);
        if (got.length === 3) break;
      }
    })();
    await waitFor(() => store.followers === 1, 'the SDK follower registered');
    for (const id of ['evf-1', 'evf-2']) {
      await client.push({ topic: 'ev-f', id, body: 1 });
      const r = await reserveOne('ev-f');
      await client.finish(r.job.id, r.token, { result: id });
    }
    await waitFor(() => got.length === 2, 'two events');
    // Drop every stream (as a proxy would): the iterator reconnects with Last-Event-ID and misses nothing.
    server.app.server.closeAllConnections();
    await client.push({ topic: 'ev-f', id: 'evf-3', body: 1 });
    const r = await reserveOne('ev-f');
    await client.finish(r.job.id, r.token, { result: 'evf-3' });
    await following;
    expect(got.map((e) => [e.event, e.id, e.result])).toEqual([
      ['finished', 'evf-1', 'evf-1'],
      ['finished', 'evf-2', 'evf-2'],
      ['finished', 'evf-3', 'evf-3'],
    ]);
    await waitFor(() => store.followers === 0, 'the follower gone after break');

    await client.push({ topic: 'ev-f', id: 'evf-4', body: 1 });
    const jobEvents: WireJobEvent[] = [];
    const one = (async () => {
      for await (const e of client.jobEvents('evf-4')) jobEvents.push(e);
    })();
    await waitFor(() => store.followers === 1, 'the job follower registered');
    const r4 = await reserveOne('ev-f');
    await client.finish(r4.job.id, r4.token, { result: 4 });
    await one;
    expect(jobEvents.map((e) => [e.event, e.result])).toEqual([['finished', 4]]);
    await expect(client.events({ topic: 'bad topic' }).next()).rejects.toMatchObject({
      code: 'E_VALIDATION',
      field: 'topic',
    });
    await waitFor(() => store.followers === 0, 'no follower left');
  });
});
