import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PushHarness, uniqueName, waitFor } from './support/harness.js';
import { redisServer, requireServer, type LocalServer } from './support/local-server.js';

const SHARED = 'redis://127.0.0.1:6379';
const OWN_PORT = 7241;

let harness: PushHarness;
let shared: Redis;
const keys: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  await requireServer('Redis', 6379);
  shared = new Redis(SHARED);
  harness = await new PushHarness().start();
});

afterAll(async () => {
  await harness?.stop();
  if (keys.length) await shared.del(...keys);
  shared?.disconnect();
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** Stream entries as a map of fields, read with plain XRANGE. */
async function entries(redis: Redis, key: string): Promise<Record<string, string>[]> {
  const raw = await redis.xrange(key, '-', '+');
  return raw.map(([, fields]) =>
    Object.fromEntries(Array.from({ length: fields.length / 2 }, (_, i) => [fields[2 * i]!, fields[2 * i + 1]!])),
  );
}

describe('Redis Streams delivery', () => {
  it('XADDs a delayed job on time to its stream with the job fields', async () => {
    const prefix = uniqueName('delayq-test');
    const topic = uniqueName('orders');
    const key = `${prefix}:${topic}`;
    keys.push(key);
    await harness.bindings.setBinding(topic, {
      type: 'redis-stream',
      url: SHARED,
      key: `${prefix}:{topic}`,
      maxLen: 1000,
    });
    const reader = shared.duplicate();
    cleanups.push(async () => reader.disconnect());
    const read = reader.xread('BLOCK', 10_000, 'STREAMS', key, '$'); // a blocking consumer, waiting before the job is due
    const job = await harness.push({ topic, tag: 'due', bizKey: 'b-1', body: { order: 5 }, delayMs: 500 });

    const result = await read;
    const arrivedAt = Date.now();
    expect(result).not.toBeNull();
    const [entryId] = result![0]![1][0]!;
    expect(Number(entryId.split('-')[0])).toBeGreaterThanOrEqual(job.runAt); // the entry id is Redis's clock at XADD
    expect(arrivedAt - job.runAt).toBeLessThan(500);
    const [fields] = await entries(shared, key);
    expect(fields).toEqual({
      id: job.id,
      topic,
      tag: 'due',
      bizKey: 'b-1',
      attempt: '1',
      runAt: String(job.runAt),
      body: job.body,
    });
    await waitFor('the job to finish', async () => (await harness.job(job.id)).state === 'finished');
  });

  describe('with a redis-server of our own', () => {
    let server: LocalServer;
    beforeAll(async () => {
      server = await redisServer(OWN_PORT).start();
      cleanups.push(() => server.stop());
    });

    it('server down: retries, then delivers every job once it is back; nothing lost', async () => {
      const url = `redis://127.0.0.1:${OWN_PORT}`;
      const topic = uniqueName('orders');
      await harness.bindings.setBinding(topic, { type: 'redis-stream', url, timeoutMs: 1000 });
      const warm = await harness.push({ topic, body: { warm: true } }); // the sink connects while the server is up
      await waitFor('the first job to finish', async () => (await harness.job(warm.id)).state === 'finished');

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

      await server.start(); // appendonly: the entry written before the crash is still there
      await waitFor(
        'every job to finish',
        async () => (await Promise.all(jobs.map((j) => harness.job(j.id)))).every((j) => j.state === 'finished'),
        20_000,
      );
      const own = new Redis(url);
      cleanups.push(async () => own.disconnect());
      const ids = (await entries(own, topic)).map((e) => e.id);
      expect(new Set(ids)).toEqual(new Set([warm.id, ...jobs.map((j) => j.id)]));
    });
  });
});
