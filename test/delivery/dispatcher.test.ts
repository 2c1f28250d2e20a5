import { afterEach, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/delivery/dispatcher.js';
import type { Consumer } from '../../src/delivery/consumer.js';
import { createSink } from '../../src/delivery/create-sink.js';
import { PushHarness, uniqueName, waitFor } from '../delivery/support/harness.js';
import { HttpReceiver } from '../delivery/support/http-receiver.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function receiver(): Promise<HttpReceiver> {
  const r = await new HttpReceiver().listen();
  cleanups.push(() => r.close());
  return r;
}

const hook = (url: string, extra: object = {}) => ({ type: 'webhook', url, allowedRanges: ['loopback'], ...extra });

describe('Dispatcher', () => {
  it('stops gracefully: takes no new jobs, lets deliveries in flight finish, and records their outcome', async () => {
    const r = await receiver();
    const held: (() => void)[] = [];
    r.handler = (_req, res) => held.push(() => res.writeHead(200).end());
    const h = await new PushHarness().start();
    cleanups.push(() => h.stop());
    const topic = uniqueName('graceful');
    await h.bindings.setBinding(topic, hook(r.url(), { timeoutMs: 10_000 }));
    const jobs = await Promise.all([1, 2, 3].map((n) => h.push({ topic, body: { n } })));
    await waitFor('three deliveries in flight', () => r.active === 3);

    let stopped = false;
    const stopping = h.dispatcher.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 200)); // lets time pass: shows stop does not return early
    expect(stopped).toBe(false); // still waiting for the three deliveries
    const late = await h.push({ topic, body: { late: true } });
    held.splice(0).forEach((release) => release());
    await stopping;
    for (const job of jobs) expect((await h.job(job.id)).state).toBe('finished');
    expect((await h.job(late.id)).state).toBe('ready'); // pushed during the stop: left for the next start
    expect(r.requests).toHaveLength(3);
  });

  it('waits on the long-poll instead of spinning, yet delivers a job as soon as it is due', async () => {
    const r = await receiver();
    const h = await new PushHarness({ pollWaitMs: 10_000 }).start();
    cleanups.push(() => h.stop());
    await h.dispatcher.stop(); // replace the harness's dispatcher by one whose reserve calls are counted
    let reserveCalls = 0;
    const counted: Consumer = {
      reserve: (request, signal) => {
        reserveCalls++;
        return h.service.reserve(request, signal);
      },
      finish: (id, token) => h.service.finish(id, token),
      fail: (id, token, request) => h.service.fail(id, token, request),
      release: (id, token) => h.service.release(id, token),
    };
    const dispatcher = new Dispatcher({ service: counted, bindings: h.bindings, createSink, pollWaitMs: 10_000 });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    const topic = uniqueName('idle');
    await h.bindings.setBinding(topic, hook(r.url()));

    await new Promise((resolve) => setTimeout(resolve, 1000)); // lets time pass: shows an idle pump does not spin
    expect(reserveCalls).toBe(1); // one long-poll, still waiting

    const job = await h.push({ topic, delayMs: 300 });
    await waitFor('the delivery', () => r.requests.length === 1);
    expect(r.requests[0]!.at - job.runAt).toBeLessThan(500);
    expect(reserveCalls).toBeLessThanOrEqual(3);
  });

  it('follows binding changes at run time: a new target takes the next jobs; without a binding the jobs wait', async () => {
    const first = await receiver();
    const second = await receiver();
    const h = await new PushHarness().start();
    cleanups.push(() => h.stop());
    const topic = uniqueName('moving');
    await h.bindings.setBinding(topic, hook(first.url()));
    const a = await h.push({ topic, body: { n: 'a' } });
    await waitFor('a at the first target', () => first.requests.length === 1);

    const pumpBefore = h.dispatcher.status();
    await h.bindings.setBinding(topic, hook(first.url())); // the same config again: nothing restarts
    expect(h.dispatcher.status()).toEqual(pumpBefore);
    expect(first.connections).toBe(1);

    await h.bindings.setBinding(topic, hook(second.url()));
    const b = await h.push({ topic, body: { n: 'b' } });
    await waitFor('b at the second target', () => second.requests.length === 1);
    expect(first.requests.map((q) => q.headers['delayq-job-id'])).toEqual([a.id]);
    expect(second.requests.map((q) => q.headers['delayq-job-id'])).toEqual([b.id]);

    await h.bindings.deleteBinding(topic);
    await waitFor('the pump to be gone', () => h.dispatcher.status().every((s) => s.topic !== topic));
    const c = await h.push({ topic, body: { n: 'c' } });
    await new Promise((resolve) => setTimeout(resolve, 300)); // lets time pass: shows no pump takes it
    expect((await h.job(c.id)).state).toBe('ready'); // a pull consumer can reserve it now
    const [reservation] = await h.service.reserve({ topics: [topic] });
    expect(reservation?.job.id).toBe(c.id);
  });
});
