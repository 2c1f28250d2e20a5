/**
 * Pausing one group of a topic over HTTP, the SDK and the CLI's client calls, on the embedded store: the group's
 * jobs stay ready while the topic's others go, with or without groupConcurrency; a resume (or the end of a timed
 * pause) lets them go and wakes a waiting long-poll; a token scoped to other topics sees and changes nothing;
 * a bad group is refused naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

const ADMIN = 'group-pause-admin-token-0123456789';
const SCOPED = 'group-pause-scoped-token-0123456789';

let server: TestServer;
let client: DelayqClient;

beforeAll(async () => {
  server = await startServer({
    overrides: { auth: { tokens: [{ token: ADMIN }, { token: SCOPED, topics: ['other.'] }] } },
  });
  client = new DelayqClient({ url: server.url, token: ADMIN });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const bodies = (got: { job: { body: unknown } }[]) => got.map((r) => r.job.body).sort();

describe('pausing one group of a topic', () => {
  it("keeps the group's jobs ready while the topic's others go, then lets them go once resumed", async () => {
    const topic = 'gp.basic';
    await client.pushBatch([
      { topic, group: 'held', body: 'h1', priority: 0 },
      { topic, group: 'held', body: 'h2', priority: 0 },
      { topic, group: 'free', body: 'f1' },
      { topic, body: 'loose' },
    ]);
    expect(await client.pauseGroup(topic, 'held')).toEqual({ topic, group: 'held', paused: true, pausedUntil: null });
    expect(await client.pausedGroups(topic)).toEqual([{ group: 'held', pausedUntil: null }]);
    // The held jobs come first in the ready order (priority 0), yet the others go.
    expect(bodies(await client.reserve({ topics: [topic], count: 10 }))).toEqual(['f1', 'loose']);
    expect(await client.reserve({ topics: [topic], count: 10 })).toEqual([]);
    expect((await client.list({ topic })).jobs.filter((j) => j.group === 'held').map((j) => j.state)).toEqual([
      'ready',
      'ready',
    ]);
    expect(await client.resumeGroup(topic, 'held')).toEqual({ topic, group: 'held', paused: false, pausedUntil: null });
    expect(await client.pausedGroups(topic)).toEqual([]);
    expect(bodies(await client.reserve({ topics: [topic], count: 10 }))).toEqual(['h1', 'h2']);
  });

  it('passes over a paused group under groupConcurrency too, and counts the others as before', async () => {
    const topic = 'gp.bounded';
    await client.putTopicSettings(topic, { groupConcurrency: 1 });
    await client.pushBatch(['a', 'a', 'b', 'b'].map((group, i) => ({ topic, group, body: `${group}${i}` })));
    await client.pauseGroup(topic, 'a');
    expect(bodies(await client.reserve({ topics: [topic], count: 10 }))).toEqual(['b2']);
    await client.resumeGroup(topic, 'a');
    expect(bodies(await client.reserve({ topics: [topic], count: 10 }))).toEqual(['a0']);
  });

  it('a timed pause ends by itself; a long-poll waiting on the group is woken by a resume', async () => {
    const topic = 'gp.timed';
    await client.push({ topic, group: 'g', body: 1 });
    const pause = await client.pauseGroup(topic, 'g', { delayMs: '400ms' });
    expect(pause.pausedUntil).toBeGreaterThan(Date.now());
    expect(await client.reserve({ topics: [topic], count: 1 })).toEqual([]);
    const [got] = await client.reserve({ topics: [topic], count: 1, waitMs: 10_000 });
    expect(got!.job.body).toBe(1);

    await client.push({ topic, group: 'g', body: 2 });
    await client.pauseGroup(topic, 'g');
    const waiting = client.reserve({ topics: [topic], count: 1, waitMs: 20_000 });
    await new Promise((r) => setTimeout(r, 200));
    const started = performance.now();
    await client.resumeGroup(topic, 'g');
    const [next] = await waiting;
    expect(next!.job.body).toBe(2);
    expect(performance.now() - started).toBeLessThan(5000); // woken by the resume, not by the end of its wait
  });

  it('a paused group does not pause the topic, nor the same group name in another topic', async () => {
    await client.pushBatch([
      { topic: 'gp.one', group: 'shared', body: 1 },
      { topic: 'gp.two', group: 'shared', body: 2 },
    ]);
    await client.pauseGroup('gp.one', 'shared');
    const stats = await client.stats();
    expect(stats.find((t) => t.topic === 'gp.one')).toMatchObject({ paused: false });
    expect(bodies(await client.reserve({ topics: ['gp.one', 'gp.two'], count: 10 }))).toEqual([2]);
    expect(await client.pausedGroups('gp.two')).toEqual([]);
  });

  it('refuses a bad group or delayMs naming the field, pausing nothing', async () => {
    for (const group of ['a%2Fb', 'tenant%201', 'x'.repeat(129), '%7Bt%7D']) {
      const answer = await http(server.url, 'POST', `/v1/topics/gp.bad/groups/${group}/pause`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(answer.status, group).toBe(400);
      expect(answer.body.error.code).toBe('E_VALIDATION');
      expect(answer.body.error.message).toMatch(/group/);
    }
    const late = await http(server.url, 'POST', '/v1/topics/gp.bad/groups/g/pause', {
      json: { delayMs: 'soon' },
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(late.status).toBe(400);
    expect(late.body.error.field).toBe('delayMs');
    expect(await client.pausedGroups('gp.bad')).toEqual([]);
  });

  it('a token scoped to other topics can neither pause, resume nor see a group of this one', async () => {
    await client.pauseGroup('gp.scoped', 'g');
    const as = { headers: { authorization: `Bearer ${SCOPED}` } };
    for (const [method, path] of [
      ['POST', '/v1/topics/gp.scoped/groups/g/pause'],
      ['POST', '/v1/topics/gp.scoped/groups/g/resume'],
      ['GET', '/v1/topics/gp.scoped/groups/paused'],
    ] as const) {
      const answer = await http(server.url, method, path, as);
      expect(answer.status, path).toBe(403);
      expect(JSON.stringify(answer.body)).not.toContain('"g"');
    }
    expect(await client.pausedGroups('gp.scoped')).toEqual([{ group: 'g', pausedUntil: null }]);
    const own = await http(server.url, 'POST', '/v1/topics/other.t/groups/g/pause', as);
    expect(own.status).toBe(200);
  });
});
