import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSinkConfig } from '../../src/delivery/sink-config.js';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { requireServer } from './support/local-server.js';

const RABBITMQ_URL = 'amqp://guest:guest@127.0.0.1:5672';
/** Nothing listens here (our range, 7200–7299): the "broker is down" address. */
const CLOSED_URL = 'amqp://guest:guest@127.0.0.1:7299';

let connection: ChannelModel;
let channel: Channel;
let harness: PushHarness;
const queues: string[] = [];

beforeAll(async () => {
  await requireServer('RabbitMQ', 5672);
  connection = await amqp.connect(RABBITMQ_URL);
  channel = await connection.createChannel();
  harness = await new PushHarness().start();
});

afterAll(async () => {
  await harness?.stop();
  for (const q of queues) await channel.deleteQueue(q).catch(() => undefined);
  await connection?.close();
});

/** A queue of our own, consumed with amqplib (RabbitMQ's own client, independent of the sink). */
async function consume(queue: string): Promise<ConsumeMessage[]> {
  await channel.assertQueue(queue, { durable: true });
  queues.push(queue);
  const received: ConsumeMessage[] = [];
  await channel.consume(queue, (msg) => {
    if (msg) {
      received.push(msg);
      channel.ack(msg);
    }
  });
  return received;
}

describe('RabbitMQ delivery', () => {
  it('publishes a delayed job to its queue on time: persistent, messageId = job id, metadata in headers', async () => {
    const topic = uniqueName('dq-rabbit');
    const received = await consume(topic);
    await harness.bindings.setBinding(topic, { type: 'rabbitmq', url: RABBITMQ_URL });
    const job = await harness.push({ topic, tag: 'created', bizKey: 'order-7', body: { order: 7 }, delayMs: 500 });

    await waitFor('the message', () => received.length === 1);
    const arrivedAt = Date.now();
    const msg = received[0]!;
    expect(arrivedAt).toBeGreaterThanOrEqual(job.runAt);
    expect(arrivedAt - job.runAt).toBeLessThan(500);
    expect(msg.content.toString()).toBe(job.body);
    expect(msg.properties.messageId).toBe(job.id);
    expect(msg.properties.deliveryMode).toBe(2);
    expect(msg.properties.contentType).toBe('application/json');
    expect(msg.properties.type).toBe('created');
    expect(msg.properties.headers).toMatchObject({
      'delayq-job-id': job.id,
      'delayq-topic': topic,
      'delayq-biz-key': 'order-7',
      'delayq-attempt': '1',
    });
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('routes through a named exchange with a routing key template', async () => {
    const topic = uniqueName('dq-rabbit');
    const exchange = uniqueName('dq-ex');
    await channel.assertExchange(exchange, 'topic', { durable: false, autoDelete: true });
    const queue = uniqueName('dq-q');
    const received = await consume(queue);
    await channel.bindQueue(queue, exchange, `${topic}.shipped`);
    await harness.bindings.setBinding(topic, {
      type: 'rabbitmq',
      url: RABBITMQ_URL,
      exchange,
      routingKey: '{topic}.{tag}',
    });
    const job = await harness.push({ topic, tag: 'shipped', body: 'x' });
    await waitFor('the message', () => received.length === 1);
    expect(received[0]!.fields).toMatchObject({ exchange, routingKey: `${topic}.shipped` });
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('does not count an unroutable message as delivered: retries until a queue exists, then delivers', async () => {
    const topic = uniqueName('dq-rabbit');
    await harness.bindings.setBinding(topic, { type: 'rabbitmq', url: RABBITMQ_URL });
    const job = await harness.push({ topic, body: { n: 1 } });
    await waitFor('two failed attempts', async () => (await harness.job(job.id)).attempts >= 2);
    expect((await harness.job(job.id)).lastError).toMatch(/unroutable/);
    const received = await consume(topic);
    await waitFor('the message', () => received.length >= 1);
    expect(received[0]!.properties.messageId).toBe(job.id);
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('survives a missing exchange (the broker closes the channel): retries, then delivers once it exists', async () => {
    const topic = uniqueName('dq-rabbit');
    const exchange = uniqueName('dq-ex-later');
    await harness.bindings.setBinding(topic, { type: 'rabbitmq', url: RABBITMQ_URL, exchange, routingKey: '{topic}' });
    const job = await harness.push({ topic, body: { n: 1 } });
    await waitFor(
      'two failed attempts',
      async () => (await harness.metric('delayq_sink_failed_total', { sink: topic })) >= 2,
    );
    expect((await harness.job(job.id)).lastError).toMatch(/404|NOT_FOUND|closed/i);

    await channel.assertExchange(exchange, 'direct', { durable: false, autoDelete: true });
    const received = await consume(uniqueName('dq-q'));
    await channel.bindQueue(queues.at(-1)!, exchange, topic);
    await waitFor('the message', () => received.length >= 1);
    expect(received[0]!.properties.messageId).toBe(job.id);
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('broker down: retries with backoff, then delivers every job once the binding points at a live broker; nothing lost', async () => {
    const topic = uniqueName('dq-rabbit');
    const received = await consume(topic);
    await harness.bindings.setBinding(topic, { type: 'rabbitmq', url: CLOSED_URL, timeoutMs: 1000 });
    const jobs = await Promise.all(Array.from({ length: 5 }, (_, n) => harness.push({ topic, body: { n } })));
    await waitFor(
      'ten failed attempts',
      async () => (await harness.metric('delayq_sink_failed_total', { sink: topic, type: 'rabbitmq' })) >= 10,
    );
    const during = await Promise.all(jobs.map((j) => harness.job(j.id)));
    expect(during.every((j) => j.state !== 'finished' && j.state !== 'dead')).toBe(true);
    expect(during.some((j) => j.attempts >= 2 && /ECONNREFUSED/.test(j.lastError ?? ''))).toBe(true);
    expect(received).toHaveLength(0);

    // The broker "comes back" (the binding is changed at run time to a live one).
    await harness.bindings.setBinding(topic, parseSinkConfig({ type: 'rabbitmq', url: RABBITMQ_URL }));
    await waitFor(
      'every job to arrive',
      () => new Set(received.map((m) => m.properties.messageId)).size === jobs.length,
    );
    expect(new Set(received.map((m) => m.properties.messageId))).toEqual(new Set(jobs.map((j) => j.id)));
    await waitFor('every job to finish', async () =>
      (await Promise.all(jobs.map((j) => harness.job(j.id)))).every((j) => j.state === 'finished'),
    );
  });
});
