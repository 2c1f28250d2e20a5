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

  it('restore with expire=false on a healthy store ends no live job; a job beyond the horizon answers 409 E_WRONG_STATE', async () => {
    const push = async (json: object) =>
      (await http(url, 'POST', '/v1/jobs', { json: { topic: 'live', body: {}, ...json } })).body.job.id as string;
    const [first, second, far] = [
      await push({ delayMs: 0 }),
      await push({ delayMs: 50 }),
      await push({ delayMs: 30 * 86_400_000 }),
    ];
    const [r] = (await http(url, 'POST', '/v1/reserve', { json: { topics: ['live'], count: 1 } })).body.reservations;
    expect([first, second]).toContain(r.job.id);
    const [reserved, ready] = r.job.id === first ? [first, second] : [second, first];
    await new Promise((resolve) => setTimeout(resolve, 100)); // lets `ready` fall past due: expire=false used to end it
    expect((await http(url, 'POST', '/v1/restore', { json: { expire: false } })).body).toMatchObject({
      restored: 0,
      skippedExpired: 0,
    });
    expect((await http(url, 'GET', '/reStore?expire=false')).status).toBe(200);
    expect((await http(url, 'GET', `/v1/jobs/${reserved}`)).body.job.state).toBe('reserved');
    expect(['ready', 'delayed']).toContain((await http(url, 'GET', `/v1/jobs/${ready}`)).body.job.state);
    expect((await http(url, 'POST', `/v1/jobs/${reserved}/finish`, { json: { token: r.token } })).status).toBe(200);
    // the same refusal as every other shape for a job only the journal holds
    expect((await http(url, 'GET', `/v1/jobs/${far}`)).body.job.state).toBe('delayed');
    for (const op of ['finish', 'touch', 'fail', 'release']) {
      const res = await http(url, 'POST', `/v1/jobs/${far}/${op}`, { json: { token: 'not-a-token' } });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('E_WRONG_STATE');
    }
    for (const id of [ready, far]) await http(url, 'POST', `/v1/jobs/${id}/cancel`, { json: {} }); // the next test counts the journal
  });

  it('restores every unfinished job after Redis is wiped, and guards clear-all', async () => {
    expect(runtime.service.journal.available).toBe(true);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await http(url, 'POST', '/v1/jobs', {
        json: { topic: 'pay', delayMs: i < 10 ? 0 : 60_000, body: { i } },
      });
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
    expect(delivered).toEqual(
      ids
        .slice(0, 10)
        .filter((id) => id !== r.job.id)
        .sort(),
    );
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
