import mqtt, { type IPublishPacket, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { mosquittoServer, requireServer, type LocalServer } from './support/local-server.js';

const SHARED = 'mqtt://127.0.0.1:1883';
const OWN_PORT = 7231;

let harness: PushHarness;
const clients: MqttClient[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await requireServer('Mosquitto', 1883);
  harness = await new PushHarness().start();
});

afterAll(async () => {
  await harness?.stop();
  for (const c of clients) await c.endAsync(true).catch(() => undefined);
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

interface Received {
  at: number;
  topic: string;
  body: string;
  packet: IPublishPacket;
}

/** A subscriber made with mqtt.js (QoS 1). With `sessionId`, a persistent MQTT 5 session the broker keeps. */
async function subscribe(url: string, filter: string, sessionId?: string): Promise<Received[]> {
  const client = await mqtt.connectAsync(url, {
    protocolVersion: 5,
    reconnectPeriod: 200,
    ...(sessionId ? { clientId: sessionId, clean: false, properties: { sessionExpiryInterval: 600 } } : {}),
  });
  clients.push(client);
  const received: Received[] = [];
  client.on('message', (topic, payload, packet) =>
    received.push({ at: Date.now(), topic, body: payload.toString(), packet }),
  );
  await client.subscribeAsync(filter, { qos: 1 });
  return received;
}

describe('MQTT delivery', () => {
  it('publishes a delayed job on time at QoS 1, with metadata as MQTT 5 user properties', async () => {
    const prefix = uniqueName('delayq-test');
    const received = await subscribe(SHARED, `${prefix}/#`);
    const topic = uniqueName('orders');
    await harness.bindings.setBinding(topic, { type: 'mqtt', url: SHARED, topic: `${prefix}/{topic}/{tag}` });
    const job = await harness.push({ topic, tag: 'due', body: { order: 3 }, delayMs: 500 });

    await waitFor('the message', () => received.length === 1);
    const msg = received[0]!;
    expect(msg.at).toBeGreaterThanOrEqual(job.runAt);
    expect(msg.at - job.runAt).toBeLessThan(500);
    expect(msg.topic).toBe(`${prefix}/${topic}/due`);
    expect(msg.body).toBe(job.body);
    expect(msg.packet.qos).toBe(1);
    expect(msg.packet.properties?.contentType).toBe('application/json');
    expect(msg.packet.properties?.userProperties).toMatchObject({ 'delayq-job-id': job.id, 'delayq-topic': topic });
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  it('refuses a destination with MQTT wildcards as final (the tag could inject one)', async () => {
    const topic = uniqueName('orders');
    await harness.bindings.setBinding(topic, { type: 'mqtt', url: SHARED, topic: 'delayq-test/{tag}' });
    const job = await harness.push({ topic, tag: 'a/#' });
    await waitFor('the job to die', async () => (await harness.job(job.id)).state === 'dead');
    expect((await harness.job(job.id)).lastError).toMatch(/invalid MQTT topic/);
  });

  describe('with a mosquitto of our own', () => {
    let server: LocalServer;
    beforeAll(async () => {
      server = await mosquittoServer(OWN_PORT).start();
      cleanups.push(() => server.stop());
    });

    it('broker down: retries, then delivers every job once it is back; nothing lost', async () => {
      const url = `mqtt://127.0.0.1:${OWN_PORT}`;
      const prefix = uniqueName('delayq-down');
      const topic = uniqueName('orders');
      await harness.bindings.setBinding(topic, { type: 'mqtt', url, topic: `${prefix}/{topic}`, timeoutMs: 1000 });

      // A persistent session (MQTT 5, clean: false): the broker queues QoS 1 messages for it, across its restart.
      const received = await subscribe(url, `${prefix}/#`, uniqueName('reader'));
      await server.kill('SIGTERM'); // mosquitto saves its sessions on the way down
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
      expect(received).toHaveLength(0);

      await server.start(); // the same sink reconnects on its own; the subscriber's session was restored
      await waitFor(
        'every job to arrive',
        () => new Set(received.map((m) => JSON.parse(m.body).n)).size === jobs.length,
        20_000,
      );
      await waitFor('every job to finish', async () =>
        (await Promise.all(jobs.map((j) => harness.job(j.id)))).every((j) => j.state === 'finished'),
      );
      expect(new Set(received.map((m) => m.packet.properties?.userProperties?.['delayq-job-id']))).toEqual(
        new Set(jobs.map((j) => j.id)),
      );
    });
  });
});
