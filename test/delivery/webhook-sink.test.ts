import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Job } from '../../src/core/job.js';
import { parseSinkConfig, type WebhookSinkConfig } from '../../src/delivery/sink-config.js';
import { SsrfGuard } from '../../src/delivery/ssrf-guard.js';
import { verifyWebhookSignature } from '../../src/core/webhook-signature.js';
import { WebhookSink } from '../../src/delivery/webhook-sink.js';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { HttpReceiver } from './support/http-receiver.js';

const SECRET = 'a-webhook-secret-of-some-length';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  while (cleanups.length) await cleanups.pop()!();
});

async function receiver(): Promise<HttpReceiver> {
  const r = await new HttpReceiver().listen();
  cleanups.push(() => r.close());
  return r;
}

async function harness(): Promise<PushHarness> {
  const h = await new PushHarness().start();
  cleanups.push(() => h.stop());
  return h;
}

function webhook(url: string, extra: Partial<WebhookSinkConfig> = {}): WebhookSinkConfig {
  return parseSinkConfig({
    type: 'webhook',
    url,
    secret: SECRET,
    allowedRanges: ['loopback'],
    timeoutMs: 2000,
    ...extra,
  }) as WebhookSinkConfig;
}

const aJob = (over: Partial<Job> = {}): Job => ({
  id: uniqueName('job'),
  topic: 'hooks',
  tag: null,
  bizKey: null,
  body: '{"hello":"world"}',
  state: 'reserved',
  runAt: Date.now(),
  priority: 0,
  ttrMs: 30_000,
  ttlMs: null,
  retry: { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 100 } },
  attempts: 1,
  lastError: null,
  createdAt: Date.now(),
  readyAt: Date.now(),
  reservedAt: Date.now(),
  finishedAt: null,
  deadlineAt: null,
  ...over,
});

describe('webhook delivery', () => {
  it('POSTs a delayed job on time, signed, with the job id as Idempotency-Key, and finishes it on 2xx', async () => {
    const r = await receiver();
    const h = await harness();
    const topic = uniqueName('hook');
    await h.bindings.setBinding(topic, webhook(r.url()));
    const job = await h.push({
      topic,
      tag: 'paid',
      bizKey: 'order-42',
      body: { order: 42, note: 'é ✓' },
      delayMs: 400,
    });

    const finished = await waitFor('the job to finish', async () =>
      (await h.job(job.id)).state === 'finished' ? h.job(job.id) : null,
    );
    expect(r.requests).toHaveLength(1);
    const req = r.requests[0]!;
    expect(req.at).toBeGreaterThanOrEqual(job.runAt);
    expect(req.at - job.runAt).toBeLessThan(500); // on time: the timer wakes at runAt, the long-poll hands it over
    expect(req.method).toBe('POST');
    expect(req.body).toBe(job.body);
    expect(JSON.parse(req.body)).toEqual({ order: 42, note: 'é ✓' });
    expect(req.headers['idempotency-key']).toBe(job.id);
    expect(req.headers['delayq-job-id']).toBe(job.id);
    expect(req.headers['delayq-topic']).toBe(topic);
    expect(req.headers['delayq-tag']).toBe('paid');
    expect(req.headers['delayq-biz-key']).toBe('order-42');
    expect(req.headers['delayq-attempt']).toBe('1');
    expect(req.headers['content-type']).toBe('application/json');
    // The receiver can verify the signature over the raw body, and a tampered body or wrong key fails.
    const signature = req.headers['delayq-signature'] as string;
    expect(verifyWebhookSignature(SECRET, signature, req.body)).toBe(true);
    expect(verifyWebhookSignature(SECRET, signature, req.body.replace('42', '43'))).toBe(false);
    expect(verifyWebhookSignature('another-secret-entirely', signature, req.body)).toBe(false);
    expect(verifyWebhookSignature(SECRET, signature, req.body, { now: Date.now() + 10 * 60_000 })).toBe(false);
    expect(finished.attempts).toBe(1);
    expect(await h.metric('delayq_sink_delivered_total', { sink: topic, type: 'webhook' })).toBe(1);
    expect(await h.metric('delayq_sink_delivery_seconds_count', { sink: topic, outcome: 'delivered' })).toBe(1);
  });

  it('retries after 5xx answers with the job backoff, then finishes on 2xx; every attempt has the same Idempotency-Key', async () => {
    const r = await receiver();
    r.handler = (_req, res, i) => res.writeHead(i < 2 ? 503 : 200).end(i < 2 ? 'busy' : 'ok');
    const h = await harness();
    const topic = uniqueName('hook');
    await h.bindings.setBinding(topic, webhook(r.url()));
    const job = await h.push({ topic, body: { n: 1 } });

    const done = await waitFor('the job to finish', async () =>
      (await h.job(job.id)).state === 'finished' ? h.job(job.id) : null,
    );
    expect(done.attempts).toBe(3);
    expect(r.requests.map((q) => q.headers['idempotency-key'])).toEqual([job.id, job.id, job.id]);
    expect(r.requests.map((q) => q.headers['delayq-attempt'])).toEqual(['1', '2', '3']);
    // The fixed 200 ms backoff separates the attempts.
    expect(r.requests[1]!.at - r.requests[0]!.at).toBeGreaterThanOrEqual(190);
    const history = await h.service.history(job.id);
    expect(history.filter((e) => e.event === 'retry').map((e) => e.reason)).toEqual([
      'HTTP 503: busy',
      'HTTP 503: busy',
    ]);
    expect(await h.metric('delayq_sink_failed_total', { sink: topic, retryable: 'true' })).toBe(2);
    expect(await h.metric('delayq_sink_delivered_total', { sink: topic })).toBe(1);
  });

  it('buries the job when the retries run out (dead letter), keeping the last error', async () => {
    const r = await receiver();
    r.handler = (_req, res) => res.writeHead(500).end();
    const h = await harness();
    const topic = uniqueName('hook');
    await h.bindings.setBinding(topic, webhook(r.url()));
    const job = await h.push({ topic, retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 100 } } });
    const dead = await waitFor('the job to die', async () =>
      (await h.job(job.id)).state === 'dead' ? h.job(job.id) : null,
    );
    expect(dead.attempts).toBe(2);
    expect(dead.lastError).toBe('HTTP 500');
    expect(r.requests).toHaveLength(2);
  });

  it('treats a 4xx refusal as final: straight to the dead letters, no retries', async () => {
    const r = await receiver();
    r.handler = (_req, res) => res.writeHead(422).end('bad order');
    const h = await harness();
    const topic = uniqueName('hook');
    await h.bindings.setBinding(topic, webhook(r.url()));
    const job = await h.push({ topic });
    const dead = await waitFor('the job to die', async () =>
      (await h.job(job.id)).state === 'dead' ? h.job(job.id) : null,
    );
    expect(dead.attempts).toBe(1);
    expect(dead.lastError).toBe('HTTP 422: bad order');
  });

  it('times out a hanging target and retries: the next attempt is delivered', async () => {
    const r = await receiver();
    r.handler = (_req, res, i) => {
      if (i > 0) res.writeHead(200).end(); // the first request is left hanging
    };
    const h = await harness();
    const topic = uniqueName('hook');
    await h.bindings.setBinding(topic, webhook(r.url(), { timeoutMs: 300 }));
    const job = await h.push({ topic });
    const done = await waitFor('the job to finish', async () =>
      (await h.job(job.id)).state === 'finished' ? h.job(job.id) : null,
    );
    expect(done.attempts).toBe(2);
    const history = await h.service.history(job.id);
    expect(history.find((e) => e.event === 'retry')?.reason).toMatch(/timed out after 300 ms/);
    // timeout (300 ms, counted from before the connection, hence the slack) + the 200 ms backoff
    expect(r.requests[1]!.at - r.requests[0]!.at).toBeGreaterThanOrEqual(300 + 200 - 100);
  });

  it("keeps a fast target unaffected by a slow one beside it, and never exceeds the slow binding's concurrency", async () => {
    const slow = await receiver();
    const fast = await receiver();
    const releaseSlow: (() => void)[] = [];
    slow.handler = (_req, res) => releaseSlow.push(() => res.writeHead(200).end());
    const h = await harness();
    const slowTopic = uniqueName('slow');
    const fastTopic = uniqueName('fast');
    await h.bindings.setBinding(slowTopic, webhook(slow.url(), { concurrency: 2, timeoutMs: 20_000 }));
    await h.bindings.setBinding(fastTopic, webhook(fast.url(), { concurrency: 4 }));

    const slowJobs = await Promise.all(Array.from({ length: 10 }, (_, n) => h.push({ topic: slowTopic, body: { n } })));
    await waitFor('the slow target to hold two requests', () => slow.active === 2);
    const startedAt = Date.now();
    const fastJobs = await Promise.all(Array.from({ length: 30 }, (_, n) => h.push({ topic: fastTopic, body: { n } })));
    await waitFor('every fast job to finish', async () => {
      const states = await Promise.all(fastJobs.map(async (j) => (await h.job(j.id)).state));
      return states.every((s) => s === 'finished');
    });
    const fastElapsedMs = Date.now() - startedAt;
    expect(fast.requests).toHaveLength(30);
    expect(fastElapsedMs).toBeLessThan(3000); // while the slow target still holds every one of its slots
    expect(slow.requests).toHaveLength(2);
    expect(slow.maxActive).toBe(2);
    expect(h.dispatcher.status().find((s) => s.topic === slowTopic)?.inFlight).toBe(2);

    // Let the slow target answer: its remaining jobs flow through, two at a time.
    const drain = setInterval(() => releaseSlow.splice(0).forEach((release) => release()), 20);
    cleanups.push(async () => clearInterval(drain));
    await waitFor('every slow job to finish', async () => {
      const states = await Promise.all(slowJobs.map(async (j) => (await h.job(j.id)).state));
      return states.every((s) => s === 'finished');
    });
    expect(slow.maxActive).toBe(2);
  });

  it('refuses a private address before any connection is made (SSRF guard), straight to the dead letters', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const h = await harness();
    const topic = uniqueName('ssrf');
    await h.bindings.setBinding(topic, parseSinkConfig({ type: 'webhook', url: 'http://10.0.0.1:8080/hook' }));
    const job = await h.push({ topic });
    const dead = await waitFor('the job to die', async () =>
      (await h.job(job.id)).state === 'dead' ? h.job(job.id) : null,
    );
    expect(dead.attempts).toBe(1);
    expect(dead.lastError).toMatch(/SSRF guard.*10\.0\.0\.1.*private/);
    const targets = connect.mock.calls.map((args) => JSON.stringify(args[0]));
    expect(targets.filter((t) => t.includes('10.0.0.1'))).toEqual([]);
    expect(await h.metric('delayq_sink_failed_total', { sink: topic, retryable: 'false' })).toBe(1);
  });

  it('refuses loopback unless allowed, by IP literal and by a name that resolves to it: the server sees no connection', async () => {
    const r = await receiver();
    const signal = new AbortController().signal;
    const guarded = new WebhookSink(parseSinkConfig({ type: 'webhook', url: r.url() }) as WebhookSinkConfig);
    const byName = new WebhookSink(
      parseSinkConfig({ type: 'webhook', url: `http://localhost:${r.port}/hook` }) as WebhookSinkConfig,
    );
    const viaMapped = new WebhookSink(
      parseSinkConfig({ type: 'webhook', url: `http://[::ffff:127.0.0.1]:${r.port}/` }) as WebhookSinkConfig,
    );
    const metadata = new WebhookSink(
      parseSinkConfig({ type: 'webhook', url: 'http://169.254.169.254/latest/meta-data/' }) as WebhookSinkConfig,
    );
    cleanups.push(() =>
      Promise.all([guarded.close(), byName.close(), viaMapped.close(), metadata.close()]).then(() => undefined),
    );

    expect(await guarded.deliver(aJob(), signal)).toEqual({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/loopback/),
    });
    expect(await byName.deliver(aJob(), signal)).toEqual({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/localhost: .*loopback/),
    });
    expect(await viaMapped.deliver(aJob(), signal)).toEqual({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/loopback/),
    });
    expect(await metadata.deliver(aJob(), signal)).toEqual({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/linkLocal/),
    });
    expect(r.connections).toBe(0);

    const allowed = new WebhookSink(webhook(`http://localhost:${r.port}/hook`));
    cleanups.push(() => allowed.close());
    expect(await allowed.deliver(aJob(), signal)).toEqual({ ok: true });
    expect(r.requests).toHaveLength(1);
  });

  it('guards https targets the same way (the TLS agent uses the guarded lookup)', async () => {
    const r = await receiver(); // plain HTTP: a TLS handshake with it fails, which proves a connection was tried
    const signal = new AbortController().signal;
    const refused = new WebhookSink(
      parseSinkConfig({ type: 'webhook', url: `https://localhost:${r.port}/hook` }) as WebhookSinkConfig,
    );
    const allowed = new WebhookSink(webhook(`https://localhost:${r.port}/hook`));
    cleanups.push(() => Promise.all([refused.close(), allowed.close()]).then(() => undefined));
    expect(await refused.deliver(aJob(), signal)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/SSRF.*loopback/),
    });
    expect(r.connections).toBe(0);
    expect(await allowed.deliver(aJob(), signal)).toMatchObject({ ok: false, retryable: true });
    expect(r.connections).toBe(1);
  });

  it('follows a same-origin 307 but never a redirect to another host or port', async () => {
    const other = await receiver();
    const r = await receiver();
    r.handler = (req, res) => {
      if (req.url === '/moved') res.writeHead(307, { location: '/hook' }).end();
      else if (req.url === '/away') res.writeHead(307, { location: other.url('/stolen') }).end();
      else if (req.url === '/see-other') res.writeHead(303, { location: '/hook' }).end();
      else res.writeHead(200).end();
    };
    const signal = new AbortController().signal;
    const moved = new WebhookSink(webhook(r.url('/moved')));
    const away = new WebhookSink(webhook(r.url('/away')));
    const seeOther = new WebhookSink(webhook(r.url('/see-other')));
    cleanups.push(() => Promise.all([moved.close(), away.close(), seeOther.close()]).then(() => undefined));

    expect(await moved.deliver(aJob(), signal)).toEqual({ ok: true });
    expect(r.requests.map((q) => [q.url, q.method])).toEqual([
      ['/moved', 'POST'],
      ['/hook', 'POST'],
    ]);
    expect(await away.deliver(aJob(), signal)).toMatchObject({
      ok: false,
      retryable: false,
      reason: expect.stringMatching(/another origin/),
    });
    expect(await seeOther.deliver(aJob(), signal)).toMatchObject({ ok: false, retryable: false });
    expect(other.connections).toBe(0);
  });

  it('lets configuration open exactly the ranges it names (range names or CIDRs)', () => {
    const guard = new SsrfGuard(['10.20.0.0/16', 'uniqueLocal']);
    expect(guard.refusal('10.20.3.4')).toBeNull();
    expect(guard.refusal('::ffff:10.20.3.4')).toBeNull(); // IPv4-mapped form of an allowed address
    expect(guard.refusal('10.21.0.1')).toMatch(/private/);
    expect(guard.refusal('fd00:ec2::254')).toBeNull();
    expect(guard.refusal('169.254.169.254')).toMatch(/linkLocal/);
    expect(guard.refusal('100.100.100.200')).toMatch(/carrierGradeNat/);
    expect(guard.refusal('0.0.0.0')).toMatch(/unspecified/);
    expect(guard.refusal('93.184.215.14')).toBeNull(); // public unicast always passes
    expect(new SsrfGuard().refusal('::1')).toMatch(/loopback/);
  });

  it('validates sink configs with the field named', () => {
    expect(() => parseSinkConfig({ type: 'webhook', url: 'ftp://x' })).toThrow(
      expect.objectContaining({ code: 'E_VALIDATION', field: 'sink.url' }),
    );
    expect(() => parseSinkConfig({ type: 'carrier-pigeon' })).toThrow(expect.objectContaining({ field: 'sink.type' }));
    expect(() => parseSinkConfig({ type: 'webhook', url: 'http://x.example', secret: 'short' })).toThrow(
      expect.objectContaining({ field: 'sink.secret' }),
    );
    expect(() => parseSinkConfig({ type: 'webhook', url: 'http://x.example', color: 'red' })).toThrow(
      expect.objectContaining({ field: 'sink.color' }),
    );
    expect(() =>
      parseSinkConfig({ type: 'webhook', url: 'http://x.example', allowedRanges: ['private', 'intranet'] }),
    ).toThrow(expect.objectContaining({ code: 'E_VALIDATION', field: 'sink.allowedRanges[1]' }));
    expect(() => parseSinkConfig({ type: 'webhook', url: 'http://x.example', allowedRanges: ['10.0.0.0/33'] })).toThrow(
      expect.objectContaining({ field: 'sink.allowedRanges[0]' }),
    );
    expect(parseSinkConfig({ type: 'rabbitmq', url: 'amqp://127.0.0.1' })).toMatchObject({
      exchange: '',
      routingKey: '{topic}',
      concurrency: 8,
      timeoutMs: 10_000,
    });
  });
});
