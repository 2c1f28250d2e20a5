import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('pause');

// Two processes' services on one Redis: a pause set through one is honoured by the other.
describe('paused topics on a shared Redis store', () => {
  let a: DelayqService;
  let b: DelayqService;

  beforeAll(async () => {
    const prefix = prefixes.next();
    const make = () => {
      const store = new RedisStore({ url: 'redis://127.0.0.1:6379', nodeId: 'n', prefix });
      return new DelayqService({ store, clock: store.clock });
    };
    a = make();
    b = make();
    await a.start();
    await b.start();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await prefixes.sweep();
  });

  it('another instance stops reserving the topic, and resumes when the pause is lifted', async () => {
    await a.push({ topic: 'shared-pause', id: 'sp-1', body: 1 });
    await a.topics.pause('shared-pause');
    // b hears of it within its refresh (0.5 s): wait for b's view, not a fixed time.
    const until = Date.now() + 5000;
    while (!b.pauses.isPaused('shared-pause') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(b.pauses.isPaused('shared-pause')).toBe(true);
    expect(await b.reserve({ topics: ['shared-pause'] })).toEqual([]);
    expect((await b.topics.stats()).find((t) => t.topic === 'shared-pause')).toMatchObject({
      paused: true,
      counts: { ready: 1 },
    });
    // A long-poll on b waiting on the paused topic is woken when a resumes it.
    const waiting = b.reserve({ topics: ['shared-pause'], waitMs: 10_000 });
    await a.topics.resume('shared-pause');
    const [got] = await waiting;
    expect(got!.job.id).toBe('sp-1');
  });
});
