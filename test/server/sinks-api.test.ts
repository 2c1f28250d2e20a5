import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { verifyWebhookSignature } from '../../src/core/webhook-signature.js';
import { http, waitFor } from '../helpers/http-server.js';
import { HttpReceiver } from '../delivery/support/http-receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-sinks-api-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('delivery bindings through the HTTP API and the runtime', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let receiver: HttpReceiver;

  beforeEach(async () => {
    receiver = new HttpReceiver();
    await receiver.listen();
    const config = loadConfig({
      env: {},
      overrides: { sqlite: { path: join(dir, `${Math.random()}.db`) }, sinks: { refreshIntervalMs: 200 } },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await closeGracefully(app, runtime, 100);
    await receiver.close();
  });

  it('binds a topic to a webhook at run time, delivers on time, and makes it pull again on delete', async () => {
    const secret = 'a-long-enough-webhook-secret';
    const put = await http(url, 'PUT', '/v1/topics/orders.close/sink', {
      json: { type: 'webhook', url: receiver.url(), secret, allowedRanges: ['loopback'], timeoutMs: 2000 },
    });
    expect(put.body).toMatchObject({ topic: 'orders.close' });
    expect(put.status).toBe(200);
    expect(put.body.sink.secret).not.toBe(secret); // masked
    const listed = (await http(url, 'GET', '/v1/sinks')).body;
    expect(listed.bindings.map((b: { topic: string }) => b.topic)).toEqual(['orders.close']);
    // `routes`, the list's first name, is answered too for one release (deprecated), with the same content.
    expect(listed.routes).toEqual(listed.bindings);

    const pushed = await http(url, 'POST', '/v1/jobs', {
      json: { topic: 'orders.close', delayMs: 300, body: { order: 42 } },
    });
    expect(pushed.status).toBe(201);
    const id = pushed.body.job.id as string;
    await waitFor(() => receiver.requests.length === 1, 'the webhook delivery');
    const delivered = receiver.requests[0]!;
    expect(delivered.at).toBeGreaterThanOrEqual(pushed.body.job.runAt);
    expect(JSON.parse(delivered.body)).toEqual({ order: 42 });
    expect(verifyWebhookSignature(secret, String(delivered.headers['delayq-signature']), delivered.body)).toBe(true);
    await waitFor(
      async () => (await http(url, 'GET', `/v1/jobs/${id}`)).body.job?.state === 'finished',
      'the job to finish',
    );

    const metrics = await fetch(`${url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/delayq_sink_delivered_total\{[^}]*sink="orders.close"[^}]*\} 1/);

    expect((await http(url, 'DELETE', '/v1/topics/orders.close/sink')).body).toEqual({ deleted: true });
    const pull = await http(url, 'POST', '/v1/jobs', { json: { topic: 'orders.close', body: 'pull me' } });
    const reserved = await http(url, 'POST', '/v1/reserve', { json: { topics: ['orders.close'], waitMs: 2000 } });
    expect(reserved.body.reservations.map((r: { job: { id: string } }) => r.job.id)).toEqual([pull.body.job.id]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('refuses a bad sink with a 400 naming the field, and a private address with the SSRF guard', async () => {
    const bad = await http(url, 'PUT', '/v1/topics/t/sink', { json: { type: 'webhook', url: 'ftp://x' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'E_VALIDATION' });
    expect(bad.body.error.field).toMatch(/url|type/);
    expect((await http(url, 'GET', '/v1/topics/t/sink')).status).toBe(404);
  });

  it('test-delivers a synthetic job to the bound sink and answers what the target said, storing nothing', async () => {
    const secret = 'a-long-enough-webhook-secret';
    await http(url, 'PUT', '/v1/topics/tested/sink', {
      json: { type: 'webhook', url: receiver.url(), secret, allowedRanges: ['loopback'], timeoutMs: 2000 },
    });
    const ok = await http(url, 'POST', '/v1/topics/tested/sink/test', { json: { body: { hello: 'sink' } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ ok: true, reason: null, retryable: null });
    expect(ok.body.jobId).toMatch(/^sink-test-/);
    const seen = receiver.requests.at(-1)!;
    expect(JSON.parse(seen.body)).toEqual({ hello: 'sink' });
    expect(seen.headers['delayq-job-id']).toBe(ok.body.jobId);
    expect(seen.headers['delayq-topic']).toBe('tested');
    expect(verifyWebhookSignature(secret, String(seen.headers['delayq-signature']), seen.body)).toBe(true);
    // without a body, {"test": true}; no job was stored by either test
    expect((await http(url, 'POST', '/v1/topics/tested/sink/test')).body.ok).toBe(true);
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toEqual({ test: true });
    expect((await http(url, 'GET', `/v1/jobs/${ok.body.jobId}`)).status).toBe(404);
    expect((await http(url, 'GET', '/v1/jobs?topic=tested')).body.jobs).toEqual([]);

    receiver.handler = (_req, res) => res.writeHead(503).end('busy');
    const refused = await http(url, 'POST', '/v1/topics/tested/sink/test', { json: {} });
    expect(refused.body).toMatchObject({ ok: false, retryable: true });
    expect(refused.body.reason).toMatch(/^HTTP 503/);

    const none = await http(url, 'POST', '/v1/topics/unbound/sink/test', { json: {} });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('E_NOT_FOUND');
    const unknownField = await http(url, 'POST', '/v1/topics/tested/sink/test', { json: { bogus: 1 } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.field).toBe('bogus');
  });
});
