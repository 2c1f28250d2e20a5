import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RestoreHandler } from '../../src/server/routes/mykit.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server.close());

const get = (path: string) => http(server.url, 'GET', path);
const post = (path: string, json: unknown) => http(server.url, 'POST', path, { json });

describe('mykit-delay endpoints (seed 000)', () => {
  it("accepts the seed's own push example and answers {success, data: id, message, code}", async () => {
    const before = server.service.clock.now(); // the clock the service stamps with
    const answer = await post('/push', {
      body: '{hello world}',
      delay: 10000,
      id: '20',
      status: 0,
      topic: 'ces',
      subtopic: '',
      ttl: 12,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, data: '20', code: 200 });
    expect(typeof answer.body.message).toBe('string');
    const job = await server.service.get('20');
    expect(job).toMatchObject({ topic: 'ces', state: 'delayed', body: JSON.stringify('{hello world}') });
    expect(job.runAt).toBeGreaterThanOrEqual(before + 10_000);
    expect(job.runAt).toBeLessThanOrEqual(server.service.clock.now() + 10_000);
  });

  it('generates an id when none is given, and counts delay from createTime', async () => {
    const answer = await post('/push', { topic: 'ces', body: 'late', delay: 10_000, createTime: Date.now() - 60_000 });
    expect(answer.body.success).toBe(true);
    expect(answer.body.data).toMatch(/^[0-9A-Z]{26}$/);
    expect((await server.service.get(answer.body.data)).state).toBe('ready');
  });

  it('GET /get/{topic} reserves one due job; GET /finish?jobId= finishes it', async () => {
    await post('/push', { topic: 'mk-get', id: 'mk-1', body: 'pay-check', delay: 0 });
    expect((await get('/get/mk-empty')).body).toMatchObject({ success: true, data: null });
    const got = await get('/get/mk-get');
    expect(got.body).toMatchObject({
      success: true,
      code: 200,
      data: { id: 'mk-1', topic: 'mk-get', body: 'pay-check' },
    });
    expect((await server.service.get('mk-1')).state).toBe('reserved');
    expect((await get('/finish?jobId=mk-1')).body).toMatchObject({ success: true, code: 200 });
    expect((await server.service.get('mk-1')).state).toBe('finished');
    expect((await get('/finish?jobId=mk-1')).body.success).toBe(true); // finishing twice is harmless
  });

  it('GET /finish on a job not yet delivered cancels it; on a REST reservation it refuses', async () => {
    await post('/push', { topic: 'mk-fin', id: 'mk-2', delay: 60_000 });
    expect((await get('/finish?jobId=mk-2')).body.success).toBe(true);
    expect((await server.service.get('mk-2')).state).toBe('cancelled');
    await post('/push', { topic: 'mk-rest', id: 'mk-3' });
    await server.service.reserve({ topics: ['mk-rest'] });
    const refused = await get('/finish?jobId=mk-3');
    expect(refused.body).toMatchObject({ success: false, code: 500 });
    expect(refused.body.message).toMatch(/^E_CONFLICT/);
  });

  it('GET /delete?jobId= cancels; errors are success:false with HTTP 200', async () => {
    expect((await get('/delete?jobId=20')).body).toMatchObject({
      success: true,
      code: 200,
      data: { dispatched: false, attempts: 0 },
    });
    expect((await server.service.get('20')).state).toBe('cancelled');
    // Already over: success, nothing cancelled.
    expect((await get('/delete?jobId=20')).body).toMatchObject({ success: true, code: 200, data: null });
    const missing = await get('/delete?jobId=');
    expect(missing).toMatchObject({ status: 200, body: { success: false, code: 500, data: null } });
    expect(missing.body.message).toMatch(/^E_VALIDATION: jobId/);
    expect((await get('/delete?jobId=nope')).body.message).toMatch(/^E_NOT_FOUND/);
    const bad = await http(server.url, 'POST', '/push', { raw: '{"topic":' });
    expect(bad).toMatchObject({ status: 200, body: { success: false, code: 500 } });
    expect((await post('/push', { topic: 'bad topic' })).body.message).toMatch(/^E_VALIDATION: topic/);
  });

  it('restore and clearAll say they need the SQL journal when none is wired', async () => {
    for (const path of ['/reStore?expire=true', '/reStore', '/reStore/20', '/reStoreJob?jobId=20', '/clearAll']) {
      const answer = await get(path);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: false, code: 500 });
      expect(answer.body.message).toMatch(/journal/);
    }
  });

  it('restore and clearAll call the restore handler when one is wired', async () => {
    const calls: string[] = [];
    const restore: RestoreHandler = {
      restore: async (expire) => (calls.push(`all:${expire}`), 'restored 3 jobs'),
      restoreJob: async (id) => (calls.push(`one:${id}`), `restored ${id}`),
      clearAll: async () => (calls.push('clear'), 'cleared 3 jobs'),
    };
    const withJournal = await startServer({ restore });
    try {
      const ask = (path: string) => http(withJournal.url, 'GET', path);
      expect((await ask('/reStore?expire=false')).body).toMatchObject({ success: true, data: 'restored 3 jobs' });
      expect((await ask('/reStore')).body.success).toBe(true);
      expect((await ask('/reStore/abc')).body).toMatchObject({ success: true, data: 'restored abc' });
      expect((await ask('/reStoreJob?jobId=def')).body.data).toBe('restored def');
      expect((await ask('/clearAll')).body.data).toBe('cleared 3 jobs');
      expect((await ask('/reStore?expire=maybe')).body.message).toMatch(/^E_VALIDATION: expire/);
      expect(calls).toEqual(['all:false', 'all:true', 'one:abc', 'one:def', 'clear']);
    } finally {
      await withJournal.close();
    }
  });
});

describe('Youzan JSON commands (seed 003) at POST /youzan', () => {
  it("adds the seed's example job with delay and TTR in seconds", async () => {
    const before = server.service.clock.now(); // the clock the service stamps with
    const answer = await post('/youzan', {
      command: 'add',
      topic: 'orderclose',
      id: 'ordercloseorderNoXXX',
      delay: 1800,
      TTR: 60,
      body: 'XXXXXXX',
    });
    expect(answer).toEqual({
      status: 200,
      body: { success: true, error: null, id: 'ordercloseorderNoXXX', value: null },
    });
    const job = await server.service.get('ordercloseorderNoXXX');
    expect(job).toMatchObject({ topic: 'orderclose', state: 'delayed', ttrMs: 60_000 });
    expect(job.runAt).toBeGreaterThanOrEqual(before + 1_800_000);
    expect((await post('/youzan', { command: 'pop', topic: 'orderclose' })).body).toEqual({
      success: true,
      error: null,
      id: null,
      value: null,
    });
  });

  it('pops a due job (value = its body, reserved with its TTR) and finishes it', async () => {
    await post('/youzan', { command: 'add', topic: 'yz', id: 'yz-1', delay: 0, TTR: 60, body: 'XXXXXXX' });
    const before = server.service.clock.now(); // the clock the service stamps with
    const popped = await post('/youzan', { command: 'pop', topic: 'yz' });
    expect(popped.body).toEqual({ success: true, error: null, id: 'yz-1', value: 'XXXXXXX' });
    const reserved = await server.service.get('yz-1');
    expect(reserved.state).toBe('reserved');
    expect(reserved.deadlineAt).toBeGreaterThanOrEqual(before + 60_000);
    expect((await post('/youzan', { command: 'finish', id: 'yz-1' })).body).toEqual({
      success: true,
      error: null,
      id: 'yz-1',
      value: null,
    });
    expect((await server.service.get('yz-1')).state).toBe('finished');
  });

  it('deletes a job', async () => {
    await post('/youzan', { command: 'add', topic: 'yz', id: 'yz-2', delay: 30, TTR: 10, body: '{"a":1}' });
    expect((await post('/youzan', { command: 'delete', id: 'yz-2' })).body).toEqual({
      success: true,
      error: null,
      id: 'yz-2',
      value: null,
      dispatched: false,
      attempts: 0,
    });
    expect((await server.service.get('yz-2')).state).toBe('cancelled');
  });

  it('says whether a deleted job had already gone out', async () => {
    await post('/youzan', { command: 'add', topic: 'yz-out', id: 'yz-3', delay: 0, TTR: 60, body: 'x' });
    expect((await post('/youzan', { command: 'pop', topic: 'yz-out' })).body.id).toBe('yz-3');
    expect((await post('/youzan', { command: 'delete', id: 'yz-3' })).body).toMatchObject({
      success: true,
      id: 'yz-3',
      dispatched: true,
      attempts: 1,
    });
  });

  it('answers refusals as {success: false, error} with HTTP 200', async () => {
    const unknown = await post('/youzan', { command: 'put', topic: 'yz' });
    expect(unknown).toMatchObject({ status: 200, body: { success: false, id: null, value: null } });
    expect(unknown.body.error).toMatch(/^E_VALIDATION: command/);
    expect((await post('/youzan', { command: 'add', id: 'x' })).body).toMatchObject({ success: false, id: 'x' });
    expect((await post('/youzan', { command: 'add', topic: 'yz', delay: -5 })).body.error).toMatch(
      /^E_VALIDATION: delay/,
    );
    expect((await post('/youzan', { command: 'finish', id: 'never-pushed' })).body.error).toMatch(/^E_NOT_FOUND/);
    expect((await http(server.url, 'POST', '/youzan', { raw: 'not json' })).body.success).toBe(false);
  });
});
