/**
 * Groups over HTTP and the SDK on the embedded SQLite store: a bad group or groupConcurrency is refused naming
 * its field, storing nothing; many consumers at once never hold more than groupConcurrency jobs of one group,
 * and every job is done exactly once. (On Redis: test/flow/groups-processes.test.ts; a Redis Cluster store,
 * which keeps no groups, refuses them: test/store/redis-cluster.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';
import { maxOverlap, type Interval } from '../helpers/overlap.js';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer();
  client = new DelayqClient({ url: server.url });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('groups over HTTP and the SDK', () => {
  it('keeps groupConcurrency in the topic settings, beside the rate limit', async () => {
    const put = await client.putTopicSettings('gr.a', { groupConcurrency: 3, rateLimit: { perSecond: 100 } });
    expect(put).toEqual({ topic: 'gr.a', groupConcurrency: 3, rateLimit: { perSecond: 100, burst: 1 } });
    expect(await client.getTopicSettings('gr.a')).toEqual(put);
    expect(await client.putTopicSettings('gr.a', { groupConcurrency: null })).toEqual({ topic: 'gr.a' });
  });

  it.each([[0], [1.5], ['2'], [-1], [100_001]])(
    'refuses groupConcurrency %j naming the field, storing nothing',
    async (value) => {
      await client.putTopicSettings('gr.bad', { groupConcurrency: 7 });
      const answer = await http(server.url, 'PUT', '/v1/topics/gr.bad/settings', { json: { groupConcurrency: value } });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'groupConcurrency' });
      expect(await client.getTopicSettings('gr.bad')).toEqual({ topic: 'gr.bad', groupConcurrency: 7 });
    },
  );

  it.each([['tenant 1'], ['a/b'], ['x'.repeat(129)], [''], [42], ['{t}']])(
    'refuses the group %j naming the field, storing nothing',
    async (group) => {
      const single = await http(server.url, 'POST', '/v1/jobs', { json: { topic: 'gr.refused', group } });
      expect(single.status).toBe(400);
      expect(single.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'group' });
      const batch = await http(server.url, 'POST', '/v1/jobs/batch', {
        json: { jobs: [{ topic: 'gr.refused' }, { topic: 'gr.refused', group }] },
      });
      expect(batch.status).toBe(400);
      expect(batch.body.error.field).toMatch(/group$/);
      expect((await client.list({ topic: 'gr.refused' })).jobs).toEqual([]);
    },
  );

  it('shows a job its group, and no group field on a job without one', async () => {
    const grouped = await client.push({ topic: 'gr.show', group: 'merchant:42@eu', body: 1 });
    expect(grouped.job.group).toBe('merchant:42@eu');
    expect((await client.get(grouped.job.id)).group).toBe('merchant:42@eu');
    const plain = await client.push({ topic: 'gr.show', body: 2 });
    expect('group' in plain.job).toBe(false);
  });

  it('a long-poll waiting behind a group at its bound gets the next job as soon as the one out ends', async () => {
    const topic = 'gr.poll';
    await client.putTopicSettings(topic, { groupConcurrency: 1 });
    await client.pushBatch([1, 2].map((n) => ({ topic, group: 'solo', body: n })));
    const [first] = await client.reserve({ topics: [topic], count: 1 });
    const waiting = client.reserve({ topics: [topic], count: 1, waitMs: 20_000 });
    await new Promise((r) => setTimeout(r, 200));
    const started = performance.now();
    await client.finish(first!.job.id, first!.token);
    const [next] = await waiting;
    expect(next!.job.body).toBe(2);
    // Woken by the finish, not by the end of its 20 s wait.
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('keeps groupRateLimit beside the other settings; refuses a bad one naming its field, storing nothing', async () => {
    const settings = { groupConcurrency: 2, groupRateLimit: { perSecond: 5, burst: 3 } };
    expect(await client.putTopicSettings('gr.rate', settings)).toEqual({ topic: 'gr.rate', ...settings });
    expect(await client.putTopicSettings('gr.rate', { groupRateLimit: { perSecond: 0.5 } })).toEqual({
      topic: 'gr.rate',
      groupRateLimit: { perSecond: 0.5, burst: 1 },
    });
    for (const [groupRateLimit, field] of [
      [{ perSecond: 0 }, 'groupRateLimit.perSecond'],
      [{ perSecond: 'fast' }, 'groupRateLimit.perSecond'],
      [{}, 'groupRateLimit.perSecond'],
      [{ perSecond: 1, burst: 1.5 }, 'groupRateLimit.burst'],
      [{ perSecond: 1, burst: 0 }, 'groupRateLimit.burst'],
      [{ perSecond: 1, every: 2 }, 'groupRateLimit.every'],
    ] as const) {
      const answer = await http(server.url, 'PUT', '/v1/topics/gr.rate/settings', { json: { groupRateLimit } });
      expect(answer.status, JSON.stringify(groupRateLimit)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'E_VALIDATION', field });
    }
    expect(await client.getTopicSettings('gr.rate')).toEqual({
      topic: 'gr.rate',
      groupRateLimit: { perSecond: 0.5, burst: 1 },
    });
  });

  it("hands each group's jobs out at its own rate; a long-poll wakes for the next token, the ungrouped go at once", async () => {
    const topic = 'gr.rated';
    await client.putTopicSettings(topic, { groupRateLimit: { perSecond: 4, burst: 1 } });
    await client.pushBatch([
      ...['x', 'y'].flatMap((group) => [1, 2, 3].map((n) => ({ topic, group, body: `${group}${n}` }))),
      ...[1, 2].map((n) => ({ topic, body: `loose${n}` })),
    ]);
    const bodies = (got: { job: { body: unknown } }[]) => got.map((r) => r.job.body as string).sort();
    const first = await client.reserve({ topics: [topic], count: 10 });
    expect(bodies(first)).toEqual(['loose1', 'loose2', 'x1', 'y1']);
    // Both groups out of tokens: the wait ends with the next token (250 ms), not after its 20 s.
    const started = performance.now();
    const next = await client.reserve({ topics: [topic], count: 10, waitMs: 20_000 });
    const waited = performance.now() - started;
    expect(waited).toBeLessThan(5000);
    expect(next.length).toBeGreaterThanOrEqual(1);
    expect(next.every((r) => ['x2', 'y2'].includes(r.job.body as string))).toBe(true);
    // All six grouped jobs out takes at least 2 token periods after the first burst, so ≥ 500 ms from the start.
    const seen = new Set([...bodies(first), ...bodies(next)]);
    while (seen.size < 8)
      for (const r of await client.reserve({ topics: [topic], count: 10, waitMs: 5000 }))
        seen.add(r.job.body as string);
    expect(performance.now() - started).toBeGreaterThanOrEqual(400);
  });

  it("a wait for ready jobs (the beanstalkd listener's) runs its full time once the group rate limit is removed", async () => {
    const topic = 'gr.unrated';
    const { service } = server;
    await client.putTopicSettings(topic, { groupRateLimit: { perSecond: 10, burst: 1 } });
    await client.pushBatch([1, 2].map((n) => ({ topic, group: 'g', id: `gr-unrated-${n}` })));
    expect(await service.reserve({ topics: [topic], count: 2 })).toHaveLength(1);
    // Refused for want of a token: the next one is due in about 100 ms.
    expect(await service.reserve({ topics: [topic], count: 2 })).toEqual([]);
    await client.putTopicSettings(topic, {});
    await client.cancel('gr-unrated-2');
    await new Promise((r) => setTimeout(r, 150));
    // Nothing ready and no limit: no token to wake for, though the refused try's token time has passed.
    const started = performance.now();
    expect(await service.waitReady([topic], 300)).toBe('timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('many consumers at once never hold more than groupConcurrency jobs of one group; each job done once', async () => {
    const topic = 'gr.load';
    await client.putTopicSettings(topic, { groupConcurrency: 2 });
    const groups = Array.from({ length: 20 }, (_, g) => `g${g}`);
    await client.pushBatch(
      groups.flatMap((group) => Array.from({ length: 10 }, (_, i) => ({ topic, group, body: i }))),
    );
    const intervals: Interval[] = [];
    const done = new Map<string, number>();
    const consumer = async () => {
      for (;;) {
        const got = await client.reserve({ topics: [topic], count: 3, waitMs: 0 });
        if (got.length === 0) return;
        await new Promise((r) => setTimeout(r, 3));
        for (const r of got) {
          const finished = await client.finish(r.job.id, r.token);
          // The store's own times: reserved at reservedAt, out until finishedAt.
          intervals.push({ key: r.job.group!, from: r.job.reservedAt!, to: finished.finishedAt! });
          done.set(r.job.id, (done.get(r.job.id) ?? 0) + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, consumer));
    expect(done.size).toBe(200);
    expect([...done.values()].every((n) => n === 1)).toBe(true);
    for (const group of groups) expect(maxOverlap(intervals, group)).toBeLessThanOrEqual(2);
    expect(Math.max(...groups.map((g) => maxOverlap(intervals, g)))).toBe(2);
  });
});
