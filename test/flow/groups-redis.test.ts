/**
 * Groups on two delayq nodes sharing one Redis: a long-poll on one node, waiting behind a group at its bound, is
 * woken by the other node's finish of the job the group had out; a group's rate tokens are shared by both nodes;
 * a group paused through one node is passed over by the other's reserves; a topic and group too long for the
 * record's topic field are refused by name.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { prefixPool } from '../helpers/redis-prefix.js';

const prefixes = prefixPool('groups-redis');
afterAll(() => prefixes.sweep());

let nodes: DelayqService[] = [];
afterEach(async () => {
  await Promise.all(nodes.map((n) => n.close()));
  nodes = [];
});

/** Two nodes on one key prefix, each with its own connection and timer. */
async function twoNodes(): Promise<[DelayqService, DelayqService]> {
  const prefix = prefixes.next();
  nodes = ['a', 'b'].map((nodeId) => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix, nodeId });
    return new DelayqService({ store, clock: store.clock, nodeId });
  });
  await Promise.all(nodes.map((n) => n.start()));
  return nodes as [DelayqService, DelayqService];
}

/** Waits until `node` follows the topic's settings (each node reads them from the store in turn). */
async function followed(node: DelayqService, topic: string, field: 'groupConcurrency' | 'groupRateLimit') {
  for (let i = 0; node.topicSettings.of(topic)[field] === undefined; i++) {
    if (i > 100) throw new Error(`${field} of ${topic} not followed`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('groups on two nodes sharing one Redis', () => {
  it("a long-poll behind a group at its bound is woken by the other node's finish", async () => {
    const [a, b] = await twoNodes();
    const topic = 'gr.wake';
    await a.topics.putSettings(topic, { groupConcurrency: 1 });
    await followed(b, topic, 'groupConcurrency');
    await a.pushBatch([1, 2].map((n) => ({ topic, group: 'solo', id: `solo-${n}` })));
    const [first] = await a.reserve({ topics: [topic], count: 1 });
    expect(first!.job.id).toBe('solo-1');
    const waiting = b.reserve({ topics: [topic], count: 1, waitMs: 20_000 });
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    await a.finish(first!.job.id, first!.token);
    const [next] = await waiting;
    expect(next!.job.id).toBe('solo-2');
    // Woken by the finish's wake-up, well before the timer's 1 s safety wake-up or the 20 s wait.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("a group's rate tokens are shared: two nodes together hand out its jobs at its rate", async () => {
    const [a, b] = await twoNodes();
    const topic = 'gr.rated';
    await a.topics.putSettings(topic, { groupRateLimit: { perSecond: 10, burst: 5 } });
    await followed(b, topic, 'groupRateLimit');
    await a.pushBatch(Array.from({ length: 100 }, (_, i) => ({ topic, group: 'g', id: `g-${i}` })));
    const handed: number[] = [];
    const started = performance.now();
    const consume = async (node: DelayqService) => {
      while (performance.now() - started < 2000) {
        const got = await node.reserve({ topics: [topic], count: 10, waitMs: 100 });
        for (let k = 0; k < got.length; k++) handed.push(performance.now() - started);
      }
    };
    await Promise.all([consume(a), consume(b), consume(a), consume(b)]);
    // 5 at once, then 10 a second for about 2 s: 25, whichever node asked (each alone would give 25 more).
    expect(handed.length).toBeGreaterThanOrEqual(22);
    expect(handed.length).toBeLessThanOrEqual(27);
    expect(handed.filter((t) => t < 100)).toHaveLength(5);
  });

  it('a group paused through one node is passed over by the other; resumed, its jobs go', async () => {
    const [a, b] = await twoNodes();
    const topic = 'gr.paused';
    await a.pushBatch([
      { topic, group: 'hold', id: 'hold-1' },
      { topic, group: 'go', id: 'go-1' },
    ]);
    await a.topics.pauseGroup(topic, 'hold');
    // b follows the store's pauses in turn: once it knows this one, its reserves pass the group over.
    for (let i = 0; !b.pauses.pausedGroupsOf([topic])?.get(topic)?.has('hold'); i++) {
      if (i > 100) throw new Error('the pause was not followed');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await b.reserve({ topics: [topic], count: 10 })).map((r) => r.job.id)).toEqual(['go-1']);
    expect(await b.reserve({ topics: [topic], count: 10 })).toEqual([]);
    await a.topics.resumeGroup(topic, 'hold');
    const back = await b.reserve({ topics: [topic], count: 10, waitMs: 5000 });
    expect(back.map((r) => r.job.id)).toEqual(['hold-1']);
  });

  it('refuses a topic and group over 255 bytes together naming group, storing nothing; 255 are kept', async () => {
    const [a] = await twoNodes();
    const topic = `t${'x'.repeat(199)}`;
    await expect(a.push({ topic, group: 'g'.repeat(55), id: 'too-long' })).rejects.toMatchObject({
      code: 'E_VALIDATION',
      field: 'group',
    });
    await expect(a.get('too-long')).rejects.toMatchObject({ code: 'E_NOT_FOUND' });
    const kept = await a.push({ topic, group: 'g'.repeat(54), id: 'just-fits' });
    expect((await a.get(kept.job.id)).group).toBe('g'.repeat(54));
  });
});
