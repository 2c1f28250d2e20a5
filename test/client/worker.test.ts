import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { Worker } from '../../src/client/worker.js';
import type { WireJob } from '../../src/protocol/schemas.js';
import { startServer, waitFor, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
let client: DelayqClient;
beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => server.close());

describe('Worker', () => {
  it('runs a handler per topic with bounded concurrency and finishes every job', async () => {
    let running = 0;
    let maxRunning = 0;
    const seen: string[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const handler = async (job: WireJob): Promise<void> => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      seen.push(`${job.topic}:${String(job.body)}`);
      await gate;
      running--;
    };
    const worker = new Worker(client, {
      handlers: { 'w-mail': handler, 'w-sms': handler },
      concurrency: 3,
      waitMs: 2000,
    }).start();
    await client.pushBatch([1, 2, 3, 4, 5].map((n) => ({ topic: n % 2 ? 'w-mail' : 'w-sms', id: `w-${n}`, body: n })));
    await waitFor(() => running === 3, 'three handlers at once');
    expect(seen).toHaveLength(3); // the other two wait for a free slot
    openGate();
    await waitFor(
      async () => (await client.list({ topic: 'w-mail', state: 'finished' })).jobs.length === 3,
      'mail jobs finished',
    );
    await waitFor(
      async () => (await client.list({ topic: 'w-sms', state: 'finished' })).jobs.length === 2,
      'sms jobs finished',
    );
    expect(maxRunning).toBe(3);
    expect(seen.sort()).toEqual(['w-mail:1', 'w-mail:3', 'w-mail:5', 'w-sms:2', 'w-sms:4']);
    await worker.close();
  });

  it('fails a job with the thrown error, which retries and then buries it', async () => {
    const attempts: number[] = [];
    const worker = new Worker(client, {
      handlers: {
        'w-fail': (job) => {
          attempts.push(job.attempts);
          throw new Error(`mail server down (try ${job.attempts})`);
        },
      },
      waitMs: 2000,
    }).start();
    await client.push({
      topic: 'w-fail',
      id: 'wf-1',
      retry: { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 } },
    });
    await waitFor(async () => (await client.get('wf-1')).state === 'dead', 'the job to be buried');
    const job = await client.get('wf-1');
    expect(job.lastError).toBe('Error: mail server down (try 2)');
    expect(attempts).toEqual([1, 2]);
    await worker.close();
  });

  it('touches the reservation while a handler runs past its TTR, so the job is not delivered twice', async () => {
    const ttrMs = 300;
    let deliveries = 0;
    const worker = new Worker(client, {
      handlers: {
        'w-slow': async () => {
          deliveries++;
          const until = Date.now() + 4 * ttrMs;
          await waitFor(() => Date.now() >= until, 'four TTRs to pass', 10_000);
        },
      },
      waitMs: 2000,
    }).start();
    const { job } = await client.push({ topic: 'w-slow', id: 'ws-1', ttrMs });
    expect(job.ttrMs).toBe(ttrMs);
    await waitFor(async () => (await client.get('ws-1')).state === 'finished', 'the slow job to finish', 10_000);
    const finished = await client.get('ws-1');
    expect(finished.attempts).toBe(1);
    expect(deliveries).toBe(1);
    await worker.close();
  });

  it('closes gracefully: stops polling at once and waits for running handlers, whose jobs are finished', async () => {
    let unblock!: () => void;
    let started = false;
    const worker = new Worker(client, {
      handlers: {
        'w-close': async () => {
          started = true;
          await new Promise<void>((resolve) => (unblock = resolve));
        },
      },
      concurrency: 2,
      waitMs: 30_000,
    }).start();
    await client.push({ topic: 'w-close', id: 'wc-1' });
    await waitFor(
      () => started && server.service.waitingConsumers > 0,
      'the handler to run and the worker to long-poll',
    );
    let closed = false;
    const closing = worker.close().then(() => (closed = true));
    await waitFor(() => server.service.waitingConsumers === 0, 'the long-poll to be dropped');
    expect(closed).toBe(false);
    expect((await client.get('wc-1')).state).toBe('reserved');
    unblock();
    await closing;
    expect((await client.get('wc-1')).state).toBe('finished');
    await client.push({ topic: 'w-close', id: 'wc-2' });
    expect((await client.reserve({ topics: ['w-close'] }))[0]?.job.id).toBe('wc-2'); // nobody else took it
  });

  it('shares its slots among two reserve lanes: each asks for its own free slots, and never more than concurrency are held', async () => {
    const asked: number[] = [];
    class RecordingClient extends DelayqClient {
      override reserveAndAck(
        ...args: Parameters<DelayqClient['reserveAndAck']>
      ): ReturnType<DelayqClient['reserveAndAck']> {
        asked.push(args[0].count ?? 1);
        return super.reserveAndAck(...args);
      }
    }
    let running = 0;
    let maxRunning = 0;
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const worker = new Worker(new RecordingClient({ url: server.url }), {
      handlers: {
        'w-lanes': async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await gate;
          running--;
        },
      },
      concurrency: 5,
      waitMs: 300,
    }).start();
    await waitFor(() => asked.length >= 2, 'both lanes polling');
    expect(asked.slice(0, 2).sort()).toEqual([2, 3]); // 5 slots: 3 + 2
    await client.pushBatch([1, 2, 3, 4, 5, 6].map((n) => ({ topic: 'w-lanes', id: `wl-${n}` })));
    await waitFor(() => running === 5, 'five handlers at once');
    const polls = asked.length;
    await new Promise((resolve) => setTimeout(resolve, 700)); // lets two poll lengths pass: shows no lane asks
    expect(asked.length).toBe(polls); // both lanes full: neither asks for more
    expect((await client.list({ topic: 'w-lanes', state: 'ready' })).jobs).toHaveLength(1);
    openGate();
    await waitFor(
      async () => (await client.list({ topic: 'w-lanes', state: 'finished' })).jobs.length === 6,
      'all six finished',
    );
    expect(maxRunning).toBe(5);
    await worker.close();

    asked.length = 0;
    const single = new Worker(new RecordingClient({ url: server.url }), {
      handlers: { 'w-lanes': () => {} },
      concurrency: 5,
      lanes: 1,
      waitMs: 300,
    }).start();
    await waitFor(() => asked.length >= 2, 'the one lane polling twice');
    expect(asked[0]).toBe(5); // one loop asks for all five slots
    expect(asked.every((n) => n === 5)).toBe(true);
    await single.close();
  });

  it('carries the finishes and fails of a batch on its next reserve: one round trip per batch', async () => {
    const requests: string[] = [];
    const errors: unknown[] = [];
    class CountingClient extends DelayqClient {
      override reserveAndAck(
        ...args: Parameters<DelayqClient['reserveAndAck']>
      ): ReturnType<DelayqClient['reserveAndAck']> {
        requests.push(`reserve+${args[0].acks?.length ?? 0}`);
        return super.reserveAndAck(...args);
      }
      override ack(...args: Parameters<DelayqClient['ack']>): ReturnType<DelayqClient['ack']> {
        requests.push(`ack ${args[0].length}`);
        return super.ack(...args);
      }
    }
    await client.pushBatch(
      Array.from({ length: 8 }, (_, i) => ({
        topic: 'w-carry',
        id: `wcy-${i}`,
        retry: { maxAttempts: 1, backoff: { type: 'fixed' as const, delayMs: 0 } },
      })),
    );
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let running = 0;
    const worker = new Worker(new CountingClient({ url: server.url }), {
      handlers: {
        'w-carry': async (job) => {
          running++;
          await gate;
          if (job.id === 'wcy-7') throw new Error('seventh fails');
        },
      },
      concurrency: 8,
      lanes: 1,
      waitMs: 2000,
      onError: (err) => errors.push(err),
    }).start();
    await waitFor(() => running === 8, 'eight handlers waiting on the gate');
    expect(requests).toEqual(['reserve+0']); // all eight came in one reserve
    openGate(); // all eight resolve in the same turn; the lane reserves again at once, carrying them
    await waitFor(
      async () => (await client.list({ topic: 'w-carry', state: 'finished' })).jobs.length === 7,
      'seven finished',
    );
    expect(requests[1]).toBe('reserve+8');
    expect((await client.get('wcy-7')).state).toBe('dead');
    expect((await client.get('wcy-7')).lastError).toBe('Error: seventh fails');
    await worker.close();
    expect(errors).toEqual([]);
    // The lane's later reserves carry nothing; no ack went in a request of its own.
    expect(requests.slice(2).every((r) => r === 'reserve+0')).toBe(true);
  });

  it('reports an item the server refused: a carried finish of a job cancelled meanwhile reaches onError, the other finishes', async () => {
    const errors: unknown[] = [];
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let running = 0;
    const worker = new Worker(client, {
      handlers: {
        'w-refused': async () => {
          running++;
          await gate;
        },
      },
      concurrency: 2,
      lanes: 1,
      waitMs: 2000,
      onError: (err) => errors.push(err),
    }).start();
    await client.pushBatch([
      { topic: 'w-refused', id: 'wr-1' },
      { topic: 'w-refused', id: 'wr-2' },
    ]);
    await waitFor(() => running === 2, 'both handlers running');
    await client.cancel('wr-2'); // the worker's finish of wr-2 can only be refused now
    openGate();
    await waitFor(() => errors.length > 0, 'the refused finish reported');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      code: 'E_WRONG_STATE',
      field: expect.stringMatching(/^acks\[\d\]\.id$/) as unknown,
    });
    await waitFor(async () => (await client.get('wr-1')).state === 'finished', 'wr-1 finished');
    expect((await client.get('wr-2')).state).toBe('cancelled');
    await worker.close();
  });

  it('flushes what is gathered on close, without waiting out ackDelayMs', async () => {
    const acked: number[] = [];
    class CountingClient extends DelayqClient {
      override ack(...args: Parameters<DelayqClient['ack']>): ReturnType<DelayqClient['ack']> {
        acked.push(args[0].length);
        return super.ack(...args);
      }
    }
    let unblock!: () => void;
    let started = false;
    const slow = new Worker(new CountingClient({ url: server.url }), {
      handlers: {
        'w-batch-close': async () => {
          started = true;
          await new Promise<void>((resolve) => (unblock = resolve));
        },
      },
      ackDelayMs: 10_000,
      waitMs: 2000,
    }).start();
    await client.push({ topic: 'w-batch-close', id: 'wbc-1' });
    await waitFor(() => started, 'the handler running');
    const closing = performance.now();
    const closed = slow.close(); // no more reserves: the finish can only go out as POST /v1/ack
    unblock();
    await closed;
    expect(performance.now() - closing).toBeLessThan(5000);
    expect((await client.get('wbc-1')).state).toBe('finished');
    expect(acked).toEqual([1]);
    expect(() => new Worker(client, { handlers: { a: () => {} }, ackDelayMs: -1 })).toThrow(/ackDelayMs/);
  });

  it('rejects a worker without handlers or with a silly concurrency or lane count', () => {
    expect(() => new Worker(client, { handlers: {} })).toThrow(/handlers/);
    expect(() => new Worker(client, { handlers: { a: () => {} }, concurrency: 0 })).toThrow(/concurrency/);
    expect(() => new Worker(client, { handlers: { a: () => {} }, lanes: 0 })).toThrow(/lanes/);
    expect(() => new Worker(client, { handlers: { a: () => {} }, lanes: 1.5 })).toThrow(/lanes/);
  });
});
