import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { LIMITS } from '../../src/core/limits.js';
import { http, startServer, waitFor, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer({
    overrides: { jobs: { retentionByTopic: { 'ret-topic': { finished: 'none' } } } },
  });
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => server.close());

describe('result feedback over HTTP', () => {
  it('finish keeps a result, fail a structured error; GET and history show them', async () => {
    await client.push({ topic: 'res-a', id: 'res-1', body: { order: 'A1' } });
    const [r] = await client.reserve({ topics: ['res-a'] });
    await client.finish('res-1', r!.token, { result: { refunded: true, amount: 12.5 } });
    const shown = await client.getWithOutcome('res-1');
    expect(shown.job.state).toBe('finished');
    expect(shown.outcome).toMatchObject({ result: { refunded: true, amount: 12.5 }, error: null });
    const history = await http(server.url, 'GET', '/v1/jobs/res-1/history');
    expect(history.body.outcome.result).toEqual({ refunded: true, amount: 12.5 });
    const withHistory = await http(server.url, 'GET', '/v1/jobs/res-1?history=true');
    expect(withHistory.body.outcome.result.refunded).toBe(true);
    expect(withHistory.body.history.at(-1).event).toBe('finish');

    await client.push({ topic: 'res-a', id: 'res-2', body: 1, retry: { maxAttempts: 1 } });
    const [r2] = await client.reserve({ topics: ['res-a'] });
    const failed = await client.fail('res-2', r2!.token, {
      error: { message: 'card declined', code: 'DECLINED', details: { psp: 'x' } },
    });
    expect(failed.job).toMatchObject({ state: 'dead', lastError: 'card declined' });
    expect((await client.getWithOutcome('res-2')).outcome).toMatchObject({
      error: { message: 'card declined', code: 'DECLINED', details: { psp: 'x' } },
    });
  });

  it('refuses a result over the limit and a bad error, naming the field; a stale token keeps nothing', async () => {
    await client.push({ topic: 'res-b', id: 'res-3', body: 1 });
    const [r] = await client.reserve({ topics: ['res-b'] });
    const big = 'x'.repeat(LIMITS.resultMaxBytes);
    const tooBig = await http(server.url, 'POST', '/v1/jobs/res-3/finish', { json: { token: r!.token, result: big } });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.field).toBe('result');
    const badCode = await http(server.url, 'POST', '/v1/jobs/res-3/fail', {
      json: { token: r!.token, error: { message: 'm', code: 'c'.repeat(LIMITS.errorCodeMaxLength + 1) } },
    });
    expect(badCode.status).toBe(400);
    expect(badCode.body.error.field).toMatch(/^error/);
    const stale = await http(server.url, 'POST', '/v1/jobs/res-3/finish', { json: { token: 'stale', result: 1 } });
    expect(stale.status).toBe(409);
    expect((await client.getWithOutcome('res-3')).outcome).toBeNull();
  });
});

describe('retention over HTTP', () => {
  it('keep none (per job and per topic) deletes the ended job; a bad retention is refused naming the field', async () => {
    await client.push({ topic: 'ret-a', id: 'ret-1', body: 1, retention: { finished: 'none' } });
    await client.push({ topic: 'ret-a', id: 'ret-2', body: 1 });
    await client.push({ topic: 'ret-topic', id: 'ret-3', body: 1 });
    for (const r of await client.reserve({ topics: ['ret-a', 'ret-topic'], count: 3 }))
      await client.finish(r.job.id, r.token);
    const gone = async (id: string) => (await http(server.url, 'GET', `/v1/jobs/${id}`)).status === 404;
    await waitFor(() => gone('ret-1'), 'ret-1 deleted by its retention');
    await waitFor(() => gone('ret-3'), 'ret-3 deleted by its topic retention');
    expect((await client.get('ret-2')).state).toBe('finished');
    const bad = await http(server.url, 'POST', '/v1/jobs', { json: { topic: 'ret-a', retention: { finished: -1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toMatch(/^retention/);
  });
});

describe('bulk operations over HTTP', () => {
  it('an order is paid: cancel every pending job of its bizKey across topics, dryRun first, a slice per call', async () => {
    const jobs = [];
    for (let i = 0; i < 7; i++)
      jobs.push({ topic: i % 2 ? 'close-order' : 'remind-order', bizKey: 'order-42', delayMs: '30m' });
    jobs.push({ topic: 'close-order', bizKey: 'order-43', delayMs: '30m' });
    await client.pushBatch(jobs);
    const dry = await client.bulk({ action: 'cancel', selector: { bizKey: 'order-42' }, dryRun: true });
    expect(dry).toEqual({ matched: 7, applied: 0, next: null, dryRun: true });
    let cursor: string | undefined;
    let applied = 0;
    let calls = 0;
    do {
      const slice = await client.bulk({
        action: 'cancel',
        selector: { bizKey: 'order-42' },
        reason: 'order paid',
        limit: 3,
        ...(cursor ? { cursor } : {}),
      });
      applied += slice.applied;
      calls++;
      cursor = slice.next ?? undefined;
    } while (cursor);
    expect(applied).toBe(7);
    expect(calls).toBeGreaterThanOrEqual(3);
    const left = await client.list({ bizKey: 'order-43' });
    expect(left.jobs.map((j) => j.state)).toEqual(['delayed']);
    // Reschedule by a shift, then delete the cancelled ones.
    const shifted = await client.bulk({ action: 'reschedule', selector: { bizKey: 'order-43' }, shiftMs: '1h' });
    expect(shifted.applied).toBe(1);
    const deleted = await client.bulk({ action: 'delete', selector: { bizKey: 'order-42', state: 'cancelled' } });
    expect(deleted).toMatchObject({ matched: 7, applied: 7 });
  });

  it('refuses bad selectors and options with 400 naming the field', async () => {
    const cases: [unknown, string | RegExp][] = [
      [{ action: 'cancel', selector: {} }, 'selector.topic'],
      [{ action: 'cancel', selector: { topic: 'a', state: 'sleeping' } }, /^selector\.state/],
      [{ action: 'cancel', selector: { topic: 'bad topic!' } }, /^selector\.topic/],
      [{ action: 'cancel', selector: { topic: 'a', dueFrom: 10, dueTo: 5 } }, 'selector.dueTo'],
      [{ action: 'cancel', selector: { topic: 'a' }, limit: 0 }, /^limit/],
      [{ action: 'reschedule', selector: { topic: 'a' } }, 'runAt'],
      [{ action: 'reschedule', selector: { topic: 'a' }, shiftMs: 'soon' }, 'shiftMs'],
      [{ action: 'explode', selector: { topic: 'a' } }, /^action/],
      [{ action: 'cancel', selector: { topic: 'a' }, cursor: 'bad cursor' }, 'cursor'],
    ];
    for (const [json, field] of cases) {
      const answer = await http(server.url, 'POST', '/v1/jobs/bulk', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.error.field, JSON.stringify(json)).toMatch(field);
    }
  });
});

describe('listings over HTTP', () => {
  it('lists delayed jobs by due time and reservations with their node; bad paging is refused naming the field', async () => {
    await client.pushBatch([
      { topic: 'due-a', id: 'due-3', delayMs: '3h' },
      { topic: 'due-a', id: 'due-1', delayMs: '1h' },
      { topic: 'due-a', id: 'due-2', delayMs: '2h' },
    ]);
    const first = await client.listDelayed({ topic: 'due-a', limit: 2 });
    expect(first.jobs.map((j) => j.id)).toEqual(['due-1', 'due-2']);
    const rest = await client.listDelayed({ topic: 'due-a', limit: 2, cursor: first.next! });
    expect(rest.jobs.map((j) => j.id)).toEqual(['due-3']);
    expect(rest.next).toBeNull();

    await client.push({ topic: 'held-a', id: 'held-1', body: 1 });
    await client.reserve({ topics: ['held-a'] });
    const held = await client.listReserved({ topic: 'held-a' });
    expect(held.reservations).toHaveLength(1);
    expect(held.reservations[0]).toMatchObject({ job: { id: 'held-1' }, node: server.service.nodeId });

    const badCursor = await http(server.url, 'GET', '/v1/delayed?cursor=nope');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.field).toBe('cursor');
    const badLimit = await http(server.url, 'GET', '/v1/reserved?limit=0');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.field).toMatch(/^limit/);
    const badRange = await http(server.url, 'GET', '/v1/delayed?from=10&to=5');
    expect(badRange.status).toBe(400);
    expect(badRange.body.error.field).toBe('to');
  });
});
