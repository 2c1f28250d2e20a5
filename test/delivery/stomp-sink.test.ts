import { Client, type IMessage } from '@stomp/stompjs';
import { TCPWrapper } from '@stomp/tcp-wrapper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { activemqServer, type LocalServer } from './support/local-server.js';

/** ActiveMQ Classic (Debian's `activemq` package), started by this file: STOMP 7261, OpenWire 7262. */
const STOMP_PORT = 7261;
const OPENWIRE_PORT = 7262;

let broker: LocalServer;
let harness: PushHarness;
const consumers: Client[] = [];

beforeAll(async () => {
  broker = await activemqServer(STOMP_PORT, OPENWIRE_PORT).start();
  harness = await new PushHarness().start();
}, 90_000);

afterAll(async () => {
  await harness?.stop();
  for (const c of consumers) await c.deactivate().catch(() => undefined);
  await broker?.stop();
});

interface Received {
  at: number;
  message: IMessage;
}

/** A STOMP consumer (client-individual acks) on ActiveMQ; reconnects and resubscribes by itself. */
function consume(destination: string): Promise<Received[]> {
  const received: Received[] = [];
  return new Promise((resolve) => {
    const client = new Client({
      webSocketFactory: () => new TCPWrapper('127.0.0.1', STOMP_PORT),
      reconnectDelay: 200,
      debug: () => undefined,
      onConnect: () => {
        client.subscribe(
          destination,
          (message) => {
            received.push({ at: Date.now(), message });
            message.ack();
          },
          { ack: 'client-individual' },
        );
        resolve(received);
      },
    });
    consumers.push(client);
    client.activate();
  });
}

describe('ActiveMQ (STOMP) delivery', () => {
  it('sends a delayed job on time to its queue, persistent, with a receipt and JMS-friendly metadata headers', async () => {
    const topic = uniqueName('orders');
    const received = await consume(`/queue/${topic}`);
    await harness.bindings.setBinding(topic, { type: 'stomp', host: '127.0.0.1', port: STOMP_PORT });
    const job = await harness.push({ topic, tag: 'due', bizKey: 'b-9', body: { order: 11 }, delayMs: 500 });

    await waitFor('the message', () => received.length === 1);
    const { at, message } = received[0]!;
    expect(at).toBeGreaterThanOrEqual(job.runAt);
    expect(at - job.runAt).toBeLessThan(500);
    expect(message.body).toBe(job.body);
    expect(message.headers).toMatchObject({
      persistent: 'true',
      delayq_job_id: job.id,
      delayq_topic: topic,
      delayq_tag: 'due',
      delayq_biz_key: 'b-9',
    });
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('broker killed: retries, then delivers every job once it is back; nothing lost', async () => {
    const topic = uniqueName('orders');
    await harness.bindings.setBinding(topic, { type: 'stomp', host: '127.0.0.1', port: STOMP_PORT, timeoutMs: 1000 });
    const warm = await harness.push({ topic, body: { warm: true } }); // connected before the crash
    await waitFor('the first job to finish', async () => (await harness.job(warm.id)).state === 'finished');

    await broker.kill();
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

    await broker.start(); // KahaDB kept the message sent before the crash
    await waitFor(
      'every job to finish',
      async () => (await Promise.all(jobs.map((j) => harness.job(j.id)))).every((j) => j.state === 'finished'),
      30_000,
    );
    const received = await consume(`/queue/${topic}`);
    const expected = new Set([warm.id, ...jobs.map((j) => j.id)]);
    await waitFor(
      'every message',
      () => new Set(received.map((r) => r.message.headers.delayq_job_id)).size === expected.size,
      20_000,
    );
    expect(new Set(received.map((r) => r.message.headers.delayq_job_id))).toEqual(expected);
  });
});
