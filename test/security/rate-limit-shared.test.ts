import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/create-service.js';
import { createBackend } from '../../src/store/create-backend.js';
import { buildApp, closeGracefully } from '../../src/server/app.js';
import { startServer, waitFor, type TestServer } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { startCluster, startRedis, type RedisServer } from '../helpers/redis-servers.js';

/** With the Redis store the limiter counts in Redis: two instances together allow `max` per window, not 2 × max. */
const MAX = 6;
// Far longer than the test's requests take even on a loaded machine: the window never turns over mid-test.
const WINDOW_MS = 20_000;
const prefixes = prefixPool('ratelimit');
afterAll(() => prefixes.sweep());

const redisBacked = (prefix: string): Promise<TestServer> =>
  startServer({
    overrides: {
      store: { kind: 'redis' },
      redis: { url: 'redis://127.0.0.1:6379', prefix, partitions: 1 },
      rateLimit: { max: MAX, windowMs: WINDOW_MS },
    },
  });

describe('rate limits shared across instances on the Redis store', () => {
  it('two instances on one Redis allow max requests per window together, then both answer 429', async () => {
    const prefix = prefixes.next();
    const a = await redisBacked(prefix);
    const b = await redisBacked(prefix);
    try {
      const statuses: number[] = [];
      // Alternate between the instances, as a load balancer would: 2 × MAX requests.
      for (let i = 0; i < MAX * 2; i++) statuses.push((await fetch(`${(i % 2 ? b : a).url}/v1/stats`)).status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(MAX);
      expect(statuses.slice(0, MAX).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(MAX).every((s) => s === 429)).toBe(true);
      // Both refuse now, each with the window the other one started.
      for (const server of [a, b]) {
        const refused = await fetch(`${server.url}/v1/stats`);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('E_RATE_LIMITED');
      }
      // The counter is one key under the deployment's prefix, expiring with the window.
      const redis = new Redis({ host: '127.0.0.1', port: 6379 });
      try {
        const key = `${prefix}:ratelimit:ip:127.0.0.1`;
        expect(Number(await redis.get(key))).toBe(MAX * 2 + 2);
        const ttl = await redis.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
      } finally {
        await redis.quit();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a deployment with another prefix counts apart, and probes are not counted', async () => {
    const first = await redisBacked(prefixes.next());
    const other = await redisBacked(prefixes.next());
    try {
      for (let i = 0; i < MAX; i++) expect((await fetch(`${first.url}/v1/stats`)).status).toBe(200);
      expect((await fetch(`${first.url}/v1/stats`)).status).toBe(429);
      for (let i = 0; i < MAX * 2; i++) expect((await fetch(`${first.url}/health`)).status).toBe(200);
      expect((await fetch(`${other.url}/v1/stats`)).status).toBe(200);
    } finally {
      await first.close();
      await other.close();
    }
  });
});

const listenable = (port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, '127.0.0.1', () => {
      const { port: bound } = probe.address() as { port: number };
      probe.close(() => resolve(bound));
    });
  });
const freePort = (): Promise<number> => listenable(0);

/** A free port whose Cluster bus port (port + 10000) is free too. */
async function freeClusterPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 9000);
    if (taken.includes(port)) continue;
    try {
      await listenable(port);
      await listenable(port + 10_000);
      return port;
    } catch {
      /* in use: try another */
    }
  }
}

describe("the limiter's Redis down", () => {
  let redis: RedisServer | undefined;
  afterEach(async () => redis?.stop());

  it('lets requests through uncounted (no 500), logs it once, and counts again when Redis is back', async () => {
    const port = await freePort();
    // The jobs stay in SQLite here: only the limiter's Redis is missing, so what is seen is the limiter's behaviour.
    const limited = {
      store: { kind: 'redis' },
      redis: { url: `redis://127.0.0.1:${port}`, prefix: 'rl', commandTimeoutMs: 200 },
      rateLimit: { max: 3, windowMs: WINDOW_MS },
    };
    const service = createService(loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' } } }));
    await service.start();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const limitedConfig = loadConfig({ env: {}, overrides: { ...limited, sqlite: { path: ':memory:' } } });
    const app = await buildApp(service, limitedConfig, {
      logger,
      rateLimits: createBackend(limitedConfig, 'limiter').rateLimits,
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${url}/v1/stats`)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      expect(lines.filter((l) => l.includes('rate limiter: Redis unreachable'))).toHaveLength(1);

      redis = await startRedis(port);
      await waitFor(
        () => lines.some((l) => l.includes('rate limiter: Redis reachable again')),
        'the limiter to reconnect',
        15_000,
      );
      const after: number[] = [];
      for (let i = 0; i < 5; i++) after.push((await fetch(`${url}/v1/stats`)).status);
      expect(after).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await closeGracefully(app, service, 100);
    }
  });
});

describe('rate limits shared on a Redis Cluster', () => {
  let servers: RedisServer[] = [];
  afterEach(async () => {
    for (const server of servers) await server.stop();
  });

  it('two instances given a redis-cluster:// URL allow max requests per window together', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 3; i++) ports.push(await freeClusterPort(ports));
    servers = await startCluster(ports as [number, number, number]);
    const url = `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
    const start = (): Promise<TestServer> =>
      startServer({
        overrides: {
          store: { kind: 'redis' },
          redis: { url, prefix: 'rl' },
          rateLimit: { max: MAX, windowMs: WINDOW_MS },
        },
      });
    const a = await start();
    const b = await start();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < MAX * 2; i++) statuses.push((await fetch(`${(i % 2 ? b : a).url}/v1/stats`)).status);
      expect(statuses).toEqual([...Array<number>(MAX).fill(200), ...Array<number>(MAX).fill(429)]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
