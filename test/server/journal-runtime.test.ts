import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';

/** The whole node as `delayq serve` builds it from config: Redis + PostgreSQL journal, restore over HTTP. */
describe('runtime on Redis + PostgreSQL journal, configured', () => {
  let redis: JournalRedis;
  let database: JournalDatabase;
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;

  beforeAll(async () => {
    redis = await startJournalRedis();
    database = await postgresJournalDatabase();
  });
  afterAll(async () => {
    await redis.stop();
    await database.drop();
  });
  beforeEach(async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        store: { kind: 'redis' },
        redis: { url: redis.url, prefix: `jr${Math.random().toString(36).slice(2, 8)}`, partitions: 2 },
        journal: { kind: 'postgres', url: PG_URL, schema: database.name, restoreMode: 'manual' },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => {
    await closeGracefully(app, runtime, 100);
  });

  it('restores every unfinished job after Redis is wiped, and guards clear-all', async () => {
    expect(runtime.service.isJournaled).toBe(true);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await http(url, 'POST', '/v1/jobs', { json: { topic: 'pay', delayMs: i < 10 ? 0 : 60_000, body: { i } } });
      expect(res.status).toBe(201);
      ids.push(res.body.job.id);
    }
    // finish one, cancel one: neither may come back
    const [r] = (await http(url, 'POST', '/v1/reserve', { json: { topics: ['pay'] } })).body.reservations;
    await http(url, 'POST', `/v1/jobs/${r.job.id}/finish`, { json: { token: r.token } });
    await http(url, 'POST', `/v1/jobs/${ids[15]}/cancel`, { json: {} });

    await redis.flushAll();
    const restored = await http(url, 'POST', '/v1/restore', { json: { expire: true } });
    expect(restored.status).toBe(200);
    expect(restored.body.restored).toBe(18);
    expect((await http(url, 'POST', '/v1/restore', { json: {} })).body.restored).toBe(0); // idempotent

    const got = await http(url, 'POST', '/v1/reserve', { json: { topics: ['pay'], count: 100 } });
    const delivered = got.body.reservations.map((x: { job: { id: string } }) => x.job.id).sort();
    expect(delivered).toEqual(ids.slice(0, 10).filter((id) => id !== r.job.id).sort());
    expect((await http(url, 'GET', `/v1/jobs/${ids[15]}`)).body.job.state).toBe('cancelled');

    // the seed's endpoints answer from the same journal
    const mykit = await http(url, 'GET', '/reStore?expire=true');
    expect(mykit.body).toMatchObject({ success: true, code: 200 });
    expect(mykit.body.data).toMatch(/restored 0 of/);

    // clear-all needs its confirmation text
    expect((await http(url, 'POST', '/v1/clear-all', { json: { confirm: 'yes' } })).status).toBe(400);
    expect((await http(url, 'GET', '/clearAll')).body.success).toBe(false);
    const cleared = await http(url, 'POST', '/v1/clear-all', { json: { confirm: 'clear-all', reason: 'test' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.cancelled).toBeGreaterThan(0);
    expect((await http(url, 'GET', `/v1/jobs/${ids[19]}`)).body.job.state).toBe('cancelled');
    expect((await http(url, 'GET', '/v1/journal')).body).toMatchObject({ restoreMode: 'manual' });
  });
});
