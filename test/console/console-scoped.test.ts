/**
 * The web console with a token limited to `orders.` topics, in a real browser (playwright-core driving Debian's
 * chromium): every view loads, and shows the jobs, topics, due times, schedules and charts over time of its topics only (the Jobs
 * page without a topic, a bizKey search across topics, "Due times" for all topics); another topic's job opened
 * by its id is "not found", as an unknown id is. docs/console.md, docs/security.md.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';
import { launchBrowser, type Browser } from '../../scripts/console-browser.js';

const ADMIN = 'console-scoped-admin-0123';
const ORDERS = 'console-scoped-orders-0123';
const SECRET = 'billing-secret-body';
const MINUTE = 60_000;

describe('web console with a topic-scoped token', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  const admin = (method: string, path: string, json?: unknown) =>
    http(url, method, path, { ...(json ? { json } : {}), headers: { authorization: `Bearer ${ADMIN}` } });

  beforeAll(async () => {
    await buildConsole();
    const config = loadConfig({
      env: {},
      overrides: {
        sqlite: { path: ':memory:' },
        auth: { tokens: [{ token: ADMIN }, { token: ORDERS, topics: ['orders.'] }] },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { sinks: runtime.sinks, schedules: runtime.schedules });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    const soon = Date.now() + 10 * MINUTE;
    for (const [id, topic, bizKey] of [
      ['o-1', 'orders.eu', 'customer-7'],
      ['o-2', 'orders.us', 'customer-7'],
      ['o-3', 'orders.us', 'customer-8'],
      ['b-1', 'billing.eu', 'customer-7'],
      ['b-2', 'billing.us', 'customer-7'],
    ] as const) {
      const body = topic.startsWith('billing') ? { secret: SECRET } : { id };
      expect((await admin('POST', '/v1/jobs', { id, topic, bizKey, runAt: soon, body })).status).toBe(201);
    }
    await admin('PUT', '/v1/schedules/orders-sweep', { topic: 'orders.sweep', everyMs: 3_600_000 });
    await admin('PUT', '/v1/schedules/billing-run', { topic: 'billing.run', everyMs: 3_600_000 });
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await runtime?.close();
  });

  /** Nothing of billing's on the page. */
  const seesNoBilling = async () => {
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toContain('billing');
    expect(text).not.toContain(SECRET);
    expect(await page.locator('.error').count()).toBe(0);
  };

  it('logs in and shows its topics only', async () => {
    await page.goto(`${url}/console/`);
    await page.locator('input[name=token]').fill(ORDERS);
    await page.locator('button[type=submit]').click();
    await page.locator('#topics tr[data-topic="orders.eu"]').waitFor();
    expect(await page.locator('#topics tr[data-topic="orders.us"]').count()).toBe(1);
    await seesNoBilling();
  });

  it('the Jobs page loads with its jobs, and a bizKey search without a topic finds its jobs only', async () => {
    await page.goto(`${url}/console/#/jobs`);
    await page.locator('#jobs tr[data-id="o-1"]').waitFor();
    const rows = () => page.locator('#jobs tbody tr').evaluateAll((all) => all.map((r) => r.dataset['id']));
    expect(await rows()).toEqual(['o-1', 'o-2', 'o-3']);
    await seesNoBilling();
    await page.locator('input[name=bizKey]').fill('customer-7');
    await page.locator('form button[type=submit]').click();
    await expect.poll(rows).toEqual(['o-1', 'o-2']);
    await seesNoBilling();
  });

  it("'Due times' for all topics counts its topics' delayed jobs", async () => {
    await page.goto(`${url}/console/#/due`);
    await page.locator('#due-total strong').waitFor();
    expect(await page.locator('#due-total strong').textContent()).toBe('3');
    await seesNoBilling();
  });

  it('schedules: its own only', async () => {
    await page.goto(`${url}/console/#/schedules`);
    await page.getByText('orders-sweep').first().waitFor();
    await seesNoBilling();
  });

  it("another topic's job opened by id is not found, as an unknown id", async () => {
    await page.goto(`${url}/console/#/jobs`);
    await page.locator('input[name=id]').fill('b-1');
    await page.locator('form button[type=submit]').click();
    await page.locator('.error').waitFor();
    const refused = await page.locator('.error').textContent();
    await page.locator('input[name=id]').fill('b-0');
    await page.locator('form button[type=submit]').click();
    await page.locator('.error', { hasText: 'b-0' }).waitFor();
    expect(refused?.replace('b-1', 'b-0')).toBe(await page.locator('.error').textContent());
    expect(refused).not.toContain('billing');
  });

  it('the charts over time cover its topics only', async () => {
    // a job pushed, reserved and finished in each of two topics, one of them not its own
    for (const topic of ['orders.eu', 'billing.eu']) {
      expect((await admin('POST', '/v1/jobs', { id: `${topic}-now`, topic })).status).toBe(201);
      const { reservations } = (await admin('POST', '/v1/reserve', { topics: [topic] })).body;
      expect(
        (await admin('POST', `/v1/jobs/${reservations[0].job.id}/finish`, { token: reservations[0].token })).status,
      ).toBe(200);
    }
    await page.goto(`${url}/console/#/topics?window=15m`);
    await page.locator('#over-time .busiest[data-topic="orders.eu"]').waitFor();
    const busiest = await page
      .locator('#over-time .busiest')
      .evaluateAll((all) => all.map((b) => b.getAttribute('data-topic')));
    expect(busiest.sort()).toEqual(['orders.eu', 'orders.us']);
    // its two topics' four pushes and one finish, not billing's
    const total = page.locator('#overview-total');
    expect([await total.getAttribute('data-push'), await total.getAttribute('data-finish')]).toEqual(['4', '1']);
    await seesNoBilling();
  });
});
