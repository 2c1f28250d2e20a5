/**
 * The console's "Restore from journal" in a real browser, on Redis + a PostgreSQL journal: a job whose
 * Redis copy was wiped is still shown (from the journal) and is pushed back into Redis by the button.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';
import { launchBrowser, type Browser } from '../../scripts/console-browser.js';

describe('web console on Redis + PostgreSQL journal', () => {
  let redis: JournalRedis;
  let database: JournalDatabase;
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let browser: Browser;

  beforeAll(async () => {
    await buildConsole();
    redis = await startJournalRedis();
    database = await postgresJournalDatabase();
    const config = loadConfig({
      env: {},
      overrides: {
        store: { kind: 'redis' },
        redis: { url: redis.url, prefix: `cj${Math.random().toString(36).slice(2, 8)}` },
        journal: { kind: 'postgres', url: PG_URL, schema: database.name, restoreMode: 'manual' },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { sinks: runtime.sinks, metrics: runtime.metrics });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (app) await closeGracefully(app, runtime, 100);
    await redis?.stop();
    await database?.drop();
  });

  it('restores a job lost from Redis from its page', async () => {
    const pushed = await http(url, 'POST', '/v1/jobs', {
      json: { topic: 'refunds', id: 'refund-3', body: { eur: 12 } },
    });
    expect(pushed.status).toBe(201);
    await redis.flushAll();
    const page = browser.page;
    await page.goto(`${url}/console/#/job/refund-3`);
    await page.locator('#job-state').waitFor();
    await page.getByRole('button', { name: 'Restore from journal' }).click();
    await page.locator('#confirm button.danger').click();
    await page.locator('#action-message').getByText('restore: restored 1').waitFor();
    // back in Redis: a consumer gets it, with its body
    const reserved = await http(url, 'POST', '/v1/reserve', { json: { topics: ['refunds'] } });
    expect(reserved.body.reservations.map((r: { job: { id: string; body: unknown } }) => r.job)).toMatchObject([
      { id: 'refund-3', body: { eur: 12 } },
    ]);
    // a second restore finds it present and pushes nothing
    await page.getByRole('button', { name: 'Restore from journal' }).click();
    await page.locator('#confirm button.danger').click();
    await page.locator('#action-message').getByText('restore: restored 0, already present 1').waitFor();
  });
});
