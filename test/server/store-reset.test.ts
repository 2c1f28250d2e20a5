import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { partitionKeys } from '../../src/store/redis/keys.js';
import type { StoreReset, StoreWarning } from '../../src/store/store-notices.js';
import { http, waitFor } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { freeJournalPort, startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { startRedis } from '../helpers/redis-servers.js';
import { aJob } from '../../src/testing/jobs.js';

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

function capture(): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const prefix = () => `rs${Math.random().toString(36).slice(2, 8)}`;

interface Node {
  runtime: DelayqRuntime;
  app: DelayqApp;
  url: string;
  lines: LogLine[];
  close(): Promise<void>;
}

async function startNode(overrides: Record<string, unknown>): Promise<Node> {
  const { logger, lines } = capture();
  const config = loadConfig({ env: {}, overrides });
  const runtime = createRuntime(config, { logger });
  await runtime.start();
  const app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { runtime, app, url, lines, close: () => closeGracefully(app, runtime, 100) };
}

const resetsOf = async (url: string): Promise<number> => (await http(url, 'GET', '/ready')).body.storeResets;

/** Redis without persistence (its own redis-server, restarted empty): the loss is noticed, logged, counted and shown. */
describe('a Redis that came back empty', () => {
  let redis: JournalRedis;

  beforeAll(async () => {
    redis = await startJournalRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('warns at start, then logs a restart without persistence at error level and counts it in /ready, /v1/stats and /metrics', async () => {
    const node = await startNode({
      store: { kind: 'redis' },
      redis: { url: redis.url, prefix: prefix(), partitions: 4 },
    });
    try {
      const warning = node.lines.find((l) => l.level === 40 && l.msg.includes('neither AOF nor RDB'));
      expect(warning?.msg).toContain(`127.0.0.1:${redis.port}`);
      expect(await resetsOf(node.url)).toBe(0);
      const pushed = await http(node.url, 'POST', '/v1/jobs', { json: { topic: 'pay', delayMs: 60_000 } });
      expect(pushed.status).toBe(201);

      await redis.restart();
      await waitFor(async () => (await resetsOf(node.url).catch(() => 0)) === 1, 'the reset to be noticed', 10_000);
      const stats = await http(node.url, 'GET', '/v1/stats');
      expect(stats.body).toEqual({ topics: [], storeResets: 1 });
      const metrics = await http(node.url, 'GET', '/metrics');
      expect(metrics.body).toMatch(/^delayq_store_resets_total 1$/m);
      const error = node.lines.find((l) => l.level === 50 && l.msg.includes('THE STORE CAME BACK EMPTY'));
      expect(error?.['storeReset']).toMatchObject({ parts: [0, 1, 2, 3], of: 4 });
      // The loss is what the docs say it is: the acknowledged job is gone.
      const lost = await http(node.url, 'GET', `/v1/jobs/${pushed.body.job.id}`);
      expect(lost.status).toBe(404);
      expect(lost.body.error.message).toMatch(/or was lost when the store came back empty at \d{4}-/);
      expect(lost.body.error.details).toMatchObject({ id: pushed.body.job.id, storeResets: 1 });

      // A FLUSHALL with the connection up is noticed too (by the periodic check), once.
      await redis.flushAll();
      await waitFor(async () => (await resetsOf(node.url)) === 2, 'the FLUSHALL to be noticed', 10_000);
      expect((await http(node.url, 'GET', '/v1/stats')).body.storeResets).toBe(2);
      expect((await http(node.url, 'GET', '/metrics')).body).toMatch(/^delayq_store_resets_total 2$/m);
    } finally {
      await node.close();
    }
  });

  it('every process on the store notices a loss once, and history names the right node afterwards', async () => {
    const p = prefix();
    const stores = ['node-a', 'node-b'].map(
      (nodeId) => new RedisStore({ url: redis.url, prefix: p, partitions: 2, nodeId }),
    );
    const resets: StoreReset[][] = [[], []];
    stores.forEach((s, i) =>
      s.notices({ onReset: (r) => resets[i]!.push(r), onWriteLoss: () => undefined, onWarning: () => undefined }),
    );
    await Promise.all(stores.map((s) => s.open()));
    try {
      await redis.flushAll();
      await waitFor(() => resets.every((r) => r.length === 1), 'both processes to notice', 10_000);
      const now = stores[1]!.clock.now();
      await stores[1]!.pushMany([aJob({ id: 'after-wipe', topic: 't', now })], now);
      await waitFor(async () => (await stores[1]!.history('after-wipe')).length === 1, 'the push');
      expect((await stores[1]!.history('after-wipe'))[0]!.node).toBe('node-b');
      // A second loss is a second notice in each process (the markers were written again, once).
      await redis.flushAll();
      await waitFor(() => resets.every((r) => r.length >= 2), 'both processes to notice again', 10_000);
      expect(resets.map((r) => r.length)).toEqual([2, 2]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('at open, a partition that lost its marker while others kept theirs is a reset (a Cluster node that came back empty)', async () => {
    const p = prefix();
    const first = new RedisStore({ url: redis.url, prefix: p, partitions: 4, nodeId: 'one' });
    await first.open();
    await first.close();
    const admin = new Redis({ port: redis.port, host: '127.0.0.1' });
    await admin.del(partitionKeys(p, 2).marker);
    admin.disconnect();
    const second = new RedisStore({ url: redis.url, prefix: p, partitions: 4, nodeId: 'two' });
    const resets: StoreReset[] = [];
    second.notices({ onReset: (r) => resets.push(r), onWriteLoss: () => undefined, onWarning: () => undefined });
    await second.open();
    await second.close();
    expect(resets.map((r) => r.parts)).toEqual([[2]]);
    // A first start (no marker anywhere) is not a reset.
    const fresh = new RedisStore({ url: redis.url, prefix: prefix(), partitions: 4, nodeId: 'three' });
    const none: StoreReset[] = [];
    fresh.notices({ onReset: (r) => none.push(r), onWriteLoss: () => undefined, onWarning: () => undefined });
    await fresh.open();
    await fresh.close();
    expect(none).toEqual([]);
  });

  it('a Redis that refuses CONFIG (managed Redis) gets an info notice instead of a warning, and the store still opens', async () => {
    const admin = new Redis({ port: redis.port, host: '127.0.0.1' });
    await admin.call('ACL', 'SETUSER', 'noconfig', 'on', '>secret', '~*', '&*', '+@all', '-config');
    admin.disconnect();
    const store = new RedisStore({
      url: `redis://noconfig:secret@127.0.0.1:${redis.port}`,
      prefix: prefix(),
      partitions: 1,
      nodeId: 'n',
    });
    const warnings: StoreWarning[] = [];
    store.notices({ onReset: () => undefined, onWriteLoss: () => undefined, onWarning: (w) => warnings.push(w) });
    await store.open();
    await store.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 'info' });
    expect(warnings[0]!.message).toContain('refused CONFIG GET');
  });
});

describe('a Redis that came back empty, with a PostgreSQL journal', () => {
  let redis: JournalRedis;
  let database: JournalDatabase;

  beforeAll(async () => {
    redis = await startJournalRedis();
    database = await postgresJournalDatabase();
  });
  afterAll(async () => {
    await redis.stop();
    await database.drop();
  });

  it('counts the reset and restores the acknowledged jobs from the journal', async () => {
    const node = await startNode({
      store: { kind: 'redis' },
      redis: { url: redis.url, prefix: prefix(), partitions: 2 },
      journal: { kind: 'postgres', url: PG_URL, schema: database.name, restoreMode: 'auto' },
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await http(node.url, 'POST', '/v1/jobs', { json: { topic: 'pay', delayMs: 60_000 } })).body.job.id);
      await redis.restart();
      await waitFor(async () => (await resetsOf(node.url).catch(() => 0)) === 1, 'the reset to be noticed', 10_000);
      await waitFor(
        async () => node.runtime.service.journal.operations().status().lastRestore !== null,
        'the restore',
        10_000,
      );
      for (const id of ids) expect((await http(node.url, 'GET', `/v1/jobs/${id}`)).body.job.state).toBe('delayed');
      expect((await http(node.url, 'GET', '/v1/stats')).body.storeResets).toBe(1);
    } finally {
      await node.close();
    }
  });
});

describe('a Redis with AOF (appendfsync always), killed with SIGKILL and started again on its files', () => {
  it('keeps every acknowledged job, and the markers tell no reset', async () => {
    const port = await freeJournalPort();
    const aof = ['--appendonly', 'yes', '--appendfsync', 'always'];
    let server = await startRedis(port, aof);
    const url = `redis://127.0.0.1:${port}`;
    const store = new RedisStore({ url, prefix: 'aof', partitions: 4, nodeId: 'aof' });
    const resets: StoreReset[] = [];
    store.notices({ onReset: (r) => resets.push(r), onWriteLoss: () => undefined, onWarning: () => undefined });
    await store.open();
    try {
      const now = store.clock.now();
      const jobs = Array.from({ length: 50 }, (_, i) => aJob({ topic: 'aof', now, delayMs: i % 2 ? 0 : 60_000 }));
      expect((await store.pushMany(jobs, now)).every((r) => r.created)).toBe(true);
      const exited = new Promise((resolve) => server.process.once('exit', resolve));
      server.process.kill('SIGKILL');
      await exited;
      server = await startRedis(port, aof, { fresh: false });
      await waitFor(
        async () => (await store.get(jobs[0]!.id).catch(() => null)) !== null,
        'the store to reconnect',
        15_000,
      );
      for (const job of jobs) expect((await store.get(job.id))?.state).toBe(job.runAt <= now ? 'ready' : 'delayed');
      // a process opening now finds every marker: nothing is reported
      const later = new RedisStore({ url, prefix: 'aof', partitions: 4, nodeId: 'aof-2' });
      const laterResets: StoreReset[] = [];
      later.notices({ onReset: (r) => laterResets.push(r), onWriteLoss: () => undefined, onWarning: () => undefined });
      await later.open();
      await later.close();
      expect(laterResets).toEqual([]);
      expect(resets).toEqual([]);
    } finally {
      await store.close();
      await server.stop();
    }
  });
});
