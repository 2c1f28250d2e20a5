import { afterEach, describe, expect, it } from 'vitest';
import { PushHarness, uniqueName, waitFor } from '../delivery/support/harness.js';
import { HttpReceiver } from '../delivery/support/http-receiver.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

describe('delivery and rate-limited topics', () => {
  it('a push sink delivers no more than the bucket gives; the rest stays ready until the rate allows it', async () => {
    const r = await new HttpReceiver().listen();
    cleanups.push(() => r.close());
    const h = await new PushHarness({ pollWaitMs: 30_000 }).start();
    cleanups.push(() => h.stop());
    const topic = uniqueName('rated-sink');
    // One token per 1000 s after a burst of 2.
    await h.service.topics.putSettings(topic, { rateLimit: { perSecond: 0.001, burst: 2 } });
    const jobs = await Promise.all([1, 2, 3, 4, 5].map((n) => h.push({ topic, body: { n } })));
    await h.bindings.setBinding(topic, { type: 'webhook', url: r.url(), allowedRanges: ['loopback'] });
    await waitFor('two deliveries', () => r.requests.length === 2);
    // The pump is running and three jobs are due: a second is ample for a delivery that should not happen.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(r.requests).toHaveLength(2);
    const states = await Promise.all(jobs.map(async (j) => (await h.job(j.id)).state));
    expect(states.filter((s) => s === 'ready')).toHaveLength(3);
    // A faster rate wakes the waiting pump (its long-poll is 30 s): the rest go out.
    await h.service.topics.putSettings(topic, { rateLimit: { perSecond: 1000, burst: 10 } });
    await waitFor('all five delivered', () => r.requests.length === 5);
  });

  it('a push sink holds at most groupConcurrency deliveries of one group at once, other groups meanwhile', async () => {
    const r = await new HttpReceiver().listen();
    cleanups.push(() => r.close());
    const active = new Map<string, number>();
    let most = 0;
    r.handler = (req, res) => {
      const group = String(req.headers['delayq-group']);
      active.set(group, (active.get(group) ?? 0) + 1);
      most = Math.max(most, active.get(group)!);
      setTimeout(() => {
        active.set(group, active.get(group)! - 1);
        res.writeHead(204).end();
      }, 40);
    };
    const h = await new PushHarness({ pollWaitMs: 30_000 }).start();
    cleanups.push(() => h.stop());
    const topic = uniqueName('grouped-sink');
    await h.service.topics.putSettings(topic, { groupConcurrency: 1 });
    for (const group of ['a', 'b', 'c']) for (let n = 0; n < 4; n++) await h.push({ topic, group, body: { n } });
    // The sink's own concurrency (8) is above what the groups allow together (3).
    await h.bindings.setBinding(topic, { type: 'webhook', url: r.url(), allowedRanges: ['loopback'] });
    await waitFor('all twelve delivered', () => r.requests.length === 12, 20_000);
    expect(most).toBe(1);
    // The groups went side by side: more than one delivery at once.
    expect(r.maxActive).toBeGreaterThan(1);
    expect(r.maxActive).toBeLessThanOrEqual(3);
  });
});
