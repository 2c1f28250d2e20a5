import { afterEach, describe, expect, it } from 'vitest';
import { PushHarness, uniqueName, waitFor } from '../delivery/support/harness.js';
import { HttpReceiver } from '../delivery/support/http-receiver.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('delivery and paused topics', () => {
  it('delivers nothing of a paused topic, and delivers its jobs once it is resumed', async () => {
    const r = await new HttpReceiver().listen();
    cleanups.push(() => r.close());
    const h = await new PushHarness().start();
    cleanups.push(() => h.stop());
    const topic = uniqueName('paused-sink');
    await h.service.topics.pause(topic);
    await h.bindings.setBinding(topic, { type: 'webhook', url: r.url(), allowedRanges: ['loopback'] });
    const job = await h.push({ topic, body: { n: 1 } });
    // The binding's pump is running and the job is due: a second is ample for a delivery that should not happen.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(r.requests).toHaveLength(0);
    expect((await h.job(job.id)).state).toBe('ready');
    await h.service.topics.resume(topic);
    await waitFor('the delivery after resume', () => r.requests.length === 1);
    await waitFor('the job finished', async () => (await h.job(job.id)).state === 'finished');
  });
});
