import { AckPolicy, jetstream, jetstreamManager, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import { NatsSink } from '../../src/delivery/nats-sink.js';
import { parseSinkConfig, type NatsSinkConfig } from '../../src/delivery/sink-config.js';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { natsServer, requireServer, type LocalServer } from './support/local-server.js';

const SHARED = 'nats://127.0.0.1:4222';
const OWN_PORT = 7221;

let harness: PushHarness;
const connections: NatsConnection[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await requireServer('NATS (JetStream)', 4222);
  harness = await new PushHarness().start();
});

afterAll(async () => {
  await harness?.stop();
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
  for (const nc of connections) await nc.close().catch(() => undefined);
});

/** A stream capturing `<prefix>.>` and a durable pull consumer on it, made with the NATS client itself. */
async function streamOn(
  server: string,
  prefix: string,
): Promise<{ jsm: JetStreamManager; next: () => Promise<JsMsg | null>; name: string }> {
  const nc = await connect({ servers: server, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  connections.push(nc);
  const jsm = await jetstreamManager(nc);
  const name = prefix.replace(/[^A-Za-z0-9_-]/g, '_');
  await jsm.streams.add({ name, subjects: [`${prefix}.>`] });
  cleanups.push(() => jsm.streams.delete(name));
  await jsm.consumers.add(name, { durable_name: 'reader', ack_policy: AckPolicy.Explicit });
  const consumer = await jetstream(nc).consumers.get(name, 'reader');
  return {
    jsm,
    name,
    next: async () => {
      const msg = await consumer.next({ expires: 2000 });
      msg?.ack();
      return msg;
    },
  };
}

describe('NATS JetStream delivery', () => {
  it('publishes a delayed job on time to its subject, with Nats-Msg-Id = job id and metadata headers', async () => {
    const prefix = uniqueName('dqtest');
    const { next } = await streamOn(SHARED, prefix);
    const topic = uniqueName('orders');
    await harness.bindings.setBinding(topic, { type: 'nats', servers: [SHARED], subject: `${prefix}.{topic}` });
    const job = await harness.push({ topic, tag: 'due', body: { order: 9 }, delayMs: 500 });

    const msg = await waitFor('the message', () => next(), 10_000, 0);
    const storedAt = msg.info.timestampNanos / 1e6;
    expect(storedAt).toBeGreaterThanOrEqual(job.runAt);
    expect(storedAt - job.runAt).toBeLessThan(500);
    expect(msg.subject).toBe(`${prefix}.${topic}`);
    expect(msg.string()).toBe(job.body);
    expect(msg.headers?.get('Nats-Msg-Id')).toBe(job.id);
    expect(msg.headers?.get('delayq-job-id')).toBe(job.id);
    expect(msg.headers?.get('delayq-tag')).toBe('due');
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('retries while no stream captures the subject, and delivers once one does', async () => {
    const prefix = uniqueName('dqlate');
    const topic = uniqueName('orders');
    await harness.bindings.setBinding(topic, {
      type: 'nats',
      servers: [SHARED],
      subject: `${prefix}.{topic}`,
      timeoutMs: 1000,
    });
    const job = await harness.push({ topic, body: { n: 1 } });
    await waitFor(
      'two failed attempts',
      async () => (await harness.metric('delayq_sink_failed_total', { sink: topic })) >= 2,
    );
    expect((await harness.job(job.id)).state).not.toBe('finished');
    const { next } = await streamOn(SHARED, prefix);
    const msg = await waitFor('the message', () => next(), 10_000, 0);
    expect(msg.headers?.get('delayq-job-id')).toBe(job.id);
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('de-duplicates a redelivery of the same job within the stream window (msgID)', async () => {
    const prefix = uniqueName('dqtest');
    const { jsm, name } = await streamOn(SHARED, prefix);
    const sink = new NatsSink(
      parseSinkConfig({ type: 'nats', servers: [SHARED], subject: `${prefix}.{topic}` }) as NatsSinkConfig,
    );
    cleanups.push(() => sink.close());
    const job = {
      id: uniqueName('job'),
      topic: 'x',
      tag: null,
      bizKey: null,
      body: '{}',
      attempts: 1,
      runAt: 0,
      createdAt: 0,
    } as unknown as Job;
    const signal = new AbortController().signal;
    expect(await sink.deliver(job, signal)).toEqual({ ok: true });
    expect(await sink.deliver({ ...job, attempts: 2 }, signal)).toEqual({ ok: true });
    expect((await jsm.streams.info(name)).state.messages).toBe(1);
    expect(await sink.deliver(job, AbortSignal.abort(new Error('gone')))).toMatchObject({ ok: false, retryable: true });
  });

  describe('with a nats-server of our own', () => {
    let server: LocalServer;
    beforeAll(async () => {
      server = await natsServer(OWN_PORT).start();
      cleanups.push(() => server.stop());
    });

    it('server down: retries, then delivers every job once it is back; nothing lost, nothing doubled', async () => {
      const url = `nats://127.0.0.1:${OWN_PORT}`;
      const prefix = uniqueName('dqdown');
      const { jsm, name, next } = await streamOn(url, prefix);
      const topic = uniqueName('orders');
      await harness.bindings.setBinding(topic, {
        type: 'nats',
        servers: [url],
        subject: `${prefix}.{topic}`,
        timeoutMs: 1000,
      });

      await server.kill();
      const jobs = await Promise.all(Array.from({ length: 5 }, (_, n) => harness.push({ topic, body: { n } })));
      await waitFor(
        'ten failed attempts',
        async () => (await harness.metric('delayq_sink_failed_total', { sink: topic })) >= 10,
        20_000,
      );
      expect(
        (await Promise.all(jobs.map((j) => harness.job(j.id)))).every(
          (j) => j.state !== 'finished' && j.state !== 'dead',
        ),
      ).toBe(true);

      await server.start(); // same JetStream store directory: the stream survives the restart
      await waitFor(
        'every job to finish',
        async () => (await Promise.all(jobs.map((j) => harness.job(j.id)))).every((j) => j.state === 'finished'),
        20_000,
      );
      const ids = new Set<string>();
      for (let msg = await next(); msg; msg = ids.size < jobs.length ? await next() : null)
        ids.add(msg.headers!.get('delayq-job-id'));
      expect(ids).toEqual(new Set(jobs.map((j) => j.id)));
      expect((await jsm.streams.info(name)).state.messages).toBe(jobs.length);
    });
  });
});
