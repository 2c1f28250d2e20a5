/**
 * Listings without a topic for a token limited to topics: each is the admin's listing with only the token's
 * topics kept, in the same order, and paging by `next` walks exactly that, however the tenants' jobs interleave
 * (GET /v1/jobs and its bizKey search, /v1/delayed, /v1/reserved, gRPC List), on the embedded store, Redis and
 * Redis with a PostgreSQL journal (whose far-future jobs are listed from the journal). docs/security.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { bearer, call as grpcCall, grpcClient, type GrpcClient } from '../grpc/grpc-client.js';
import { ADMIN, ORDERS, SHAPES, call, startTenantNode, type TenantNode } from './support/tenant-node.js';

const prefixes = prefixPool('scoped-lists');
afterAll(() => prefixes.sweep());

describe.each(['embedded', 'redis', 'redis + postgresql'])('listings of a scoped token · %s', (shape) => {
  let node: TenantNode;
  let database: JournalDatabase | undefined;
  let grpc: GrpcClient;
  const topics = ['orders.a', 'billing.a', 'orders.b', 'billing.b', 'orders.c'];

  beforeAll(async () => {
    if (SHAPES[shape]!.journal) database = await postgresJournalDatabase();
    node = await startTenantNode(SHAPES[shape]!.overrides(prefixes.next(), database));
    grpc = grpcClient(node.grpcTarget);
    // Interleaved ids, due times spread over both tenants, some beyond a journal's 1 h horizon; some reserved.
    const jobs = Array.from({ length: 30 }, (_, i) => ({
      id: `job-${String(i).padStart(2, '0')}`,
      topic: topics[(i * 7) % topics.length]!,
      bizKey: i % 2 ? 'odd' : 'even',
      delayMs: ((i * 13) % 11) * 900_000 + 60_000,
    }));
    expect((await call(node.url, ADMIN, 'POST', '/v1/jobs/batch', { jobs })).status).toBe(200);
    for (const topic of topics)
      await call(node.url, ADMIN, 'POST', '/v1/jobs/batch', {
        jobs: [0, 1].map((k) => ({ topic, id: `ready-${topic}-${k}` })),
      });
    for (const topic of topics)
      await call(node.url, ADMIN, 'POST', '/v1/reserve', { topics: [topic], count: 1, ttrMs: 60_000 + topic.length });
  });
  afterAll(async () => {
    grpc?.close();
    await node?.close();
    await database?.drop();
  });

  /** Every item of a listing, page by page (`limit` per page), as `token` sees it. */
  async function walk(token: string, path: string, key: string, limit: number): Promise<unknown[]> {
    const items: unknown[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 100; pages++) {
      const sep = path.includes('?') ? '&' : '?';
      const url: string = `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await call(node.url, token, 'GET', url);
      expect(answer.status).toBe(200);
      items.push(...answer.body[key]);
      cursor = answer.body.next;
      if (cursor === null) return items;
    }
    throw new Error(`${path} did not end`);
  }
  const topicOf = (item: any): string => item.topic ?? item.job.topic;
  const idOf = (item: any): string => item.id ?? item.job.id;

  it.each([
    ['/v1/jobs', 'jobs'],
    ['/v1/jobs?bizKey=odd', 'jobs'],
    ['/v1/jobs?state=delayed', 'jobs'],
    ['/v1/delayed', 'jobs'],
    ['/v1/reserved', 'reservations'],
  ])('%s: the admin listing of its topics, in order, page by page', async (path, key) => {
    const all = await walk(ADMIN, path, key, 1000);
    const mine = all.filter((item) => topicOf(item).startsWith('orders.')).map(idOf);
    expect(mine.length).toBeGreaterThan(2);
    expect(all.length).toBeGreaterThan(mine.length);
    for (const limit of [1, 2, 7, 1000]) expect((await walk(ORDERS, path, key, limit)).map(idOf)).toEqual(mine);
  });

  it('gRPC List without a topic pages the same way', async () => {
    const admin = (await grpcCall(grpc, 'List', { limit: 1000 }, bearer(ADMIN))).jobs as {
      id: string;
      topic: string;
    }[];
    const mine = admin.filter((j) => j.topic.startsWith('orders.')).map((j) => j.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await grpcCall(grpc, 'List', { limit: 3, ...(cursor ? { cursor } : {}) }, bearer(ORDERS));
      seen.push(...page.jobs.map((j: { id: string }) => j.id));
      cursor = page.next;
    } while (cursor);
    expect(seen).toEqual(mine);
  });
});
