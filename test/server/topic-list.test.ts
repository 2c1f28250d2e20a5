/**
 * GET /v1/topics: the topic list filtered, sorted and paged by cursor, as the console's overview reads it
 * with 142 topics; a token limited to prefixes sees only its topics; bad input names its field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startServer, type TestServer } from '../helpers/http-server.js';

const ADMIN = 'topic-list-admin-token-01';
const SCOPED = 'topic-list-scoped-token-01';

describe('GET /v1/topics', () => {
  let server: TestServer;
  const api = (path: string, token = ADMIN) =>
    http(server.url, 'GET', path, { headers: { authorization: `Bearer ${token}` } });
  /** Walks every page of a query; the topics in order, and how many calls it took. */
  const walk = async (query: string, token = ADMIN) => {
    const topics: string[] = [];
    let cursor: string | null = null;
    let calls = 0;
    do {
      const page = await api(`/v1/topics?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
      expect(page.status).toBe(200);
      topics.push(...page.body.topics.map((t: { topic: string }) => t.topic));
      cursor = page.body.next;
      calls++;
    } while (cursor);
    return { topics, calls };
  };

  beforeAll(async () => {
    server = await startServer({
      overrides: {
        auth: { tokens: [{ token: ADMIN }, { token: SCOPED, name: 'billing', topics: ['billing.'] }] },
      },
    });
    // 142 topics: topic i has i delayed jobs (i = 1…142); every 10th has one dead job too.
    const jobs: object[] = [];
    for (let i = 1; i <= 142; i++) {
      const topic = `${i % 3 === 0 ? 'billing' : 'orders'}.t${String(i).padStart(3, '0')}`;
      for (let n = 0; n < i; n++) jobs.push({ topic, delayMs: 3_600_000 + i * 1000 });
    }
    for (let start = 0; start < jobs.length; start += 1000) {
      const batch = await http(server.url, 'POST', '/v1/jobs/batch', {
        json: { jobs: jobs.slice(start, start + 1000) },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(batch.status).toBe(200);
    }
    for (let i = 10; i <= 142; i += 10) {
      const topic = `${i % 3 === 0 ? 'billing' : 'orders'}.t${String(i).padStart(3, '0')}`;
      await server.service.push({ topic, id: `dead-${i}`, retry: { maxAttempts: 1 } });
      const [r] = await server.service.reserve({ topics: [topic] });
      await server.service.fail(r!.job.id, r!.token, { error: 'boom' });
    }
    await server.service.topics.pause('orders.t001');
  }, 60_000);
  afterAll(() => server?.close());

  it('pages every topic by name in pages of the limit, each once', async () => {
    const first = await api('/v1/topics?limit=50');
    expect(first.body.total).toBe(142);
    expect(first.body.topics).toHaveLength(50);
    expect(first.body.topics[0]).toMatchObject({ topic: 'billing.t003', counts: { delayed: 3 }, paused: false });
    const { topics, calls } = await walk('limit=50');
    expect(calls).toBe(3);
    expect(topics).toHaveLength(142);
    expect(new Set(topics).size).toBe(142);
    expect(topics).toEqual([...topics].sort());
  });

  it('sorts by a state count (largest first by default) and by the next due time', async () => {
    const byDelayed = await walk('sort=delayed&limit=40');
    const delayedCounts = byDelayed.topics.map((t) => Number(t.slice(-3)));
    expect(delayedCounts.slice(0, 3)).toEqual([142, 141, 140]);
    expect(byDelayed.topics).toHaveLength(142);
    const ascending = await api('/v1/topics?sort=delayed&order=asc&limit=2');
    expect(ascending.body.topics.map((t: { counts: { delayed: number } }) => t.counts.delayed)).toEqual([1, 2]);
    const dueFirst = await api('/v1/topics?sort=nextDueAt&limit=1');
    expect(dueFirst.body.topics[0].topic).toBe('orders.t001');
    const byDead = await api('/v1/topics?sort=dead&limit=3');
    // ties (one dead job each) fall back to the name, in the order's direction
    expect(byDead.body.topics.map((t: { topic: string }) => t.topic)).toEqual([
      'orders.t140',
      'orders.t130',
      'orders.t110',
    ]);
  });

  it('filters by prefix, by a part of the name, by a state with jobs and by pause', async () => {
    const billing = await walk('prefix=billing.&limit=1000');
    expect(billing.topics).toHaveLength(47);
    expect(billing.topics.every((t) => t.startsWith('billing.'))).toBe(true);
    const part = await api('/v1/topics?contains=T14');
    expect(part.body.topics.map((t: { topic: string }) => t.topic)).toEqual([
      'billing.t141',
      'orders.t140',
      'orders.t142',
    ]);
    const withDead = await api('/v1/topics?has=dead&limit=1000');
    expect(withDead.body.total).toBe(14);
    const paused = await api('/v1/topics?paused=true');
    expect(paused.body).toMatchObject({ total: 1, next: null, topics: [{ topic: 'orders.t001', paused: true }] });
  });

  it('shows a token limited to topic prefixes only its topics, in the total too', async () => {
    const { topics } = await walk('limit=10', SCOPED);
    expect(topics).toHaveLength(47);
    expect(topics.every((t) => t.startsWith('billing.'))).toBe(true);
    expect((await api('/v1/topics?prefix=orders.', SCOPED)).body).toMatchObject({ total: 0, topics: [] });
  });

  it('refuses bad input naming the field', async () => {
    const badSort = await api('/v1/topics?sort=size');
    expect(badSort.status).toBe(400);
    expect(badSort.body.error.field).toBe('sort');
    const badCursor = await api('/v1/topics?cursor=not-a-cursor');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.field).toBe('cursor');
    const first = await api('/v1/topics?sort=dead&limit=5');
    const otherSort = await api(`/v1/topics?sort=topic&cursor=${encodeURIComponent(first.body.next)}`);
    expect(otherSort.status).toBe(400);
    expect(otherSort.body.error).toMatchObject({ code: 'E_VALIDATION', field: 'cursor' });
    const badLimit = await api('/v1/topics?limit=0');
    expect(badLimit.body.error.field).toBe('limit');
    const badPrefix = await api('/v1/topics?prefix=a%20b');
    expect(badPrefix.status).toBe(400);
    expect(badPrefix.body.error.field).toBe('prefix');
  });
});
