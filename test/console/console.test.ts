/**
 * The web console in a real browser (playwright-core driving Debian's chromium) against a real server
 * with tokens: log in, find a job by bizKey, see its timeline, cancel it, redrive a dead job, read the
 * due-time histogram against jobs pushed here. Screenshots land in docs/console/ (docs/console.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';

const TOKEN = 'console-admin-token-0123';
const SHOTS = join(import.meta.dirname, '..', '..', 'docs', 'console');
const MINUTE = 60_000;

describe('web console', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let context: BrowserContext;
  let page: Page;
  const profile = mkdtempSync(join(tmpdir(), 'delayq-chromium-'));
  const api = (method: string, path: string, json?: unknown) =>
    http(url, method, path, { ...(json ? { json } : {}), headers: { authorization: `Bearer ${TOKEN}` } });

  beforeAll(async () => {
    await buildConsole();
    const config = loadConfig({
      env: {},
      overrides: { sqlite: { path: ':memory:' }, auth: { tokens: [{ token: TOKEN }] }, metrics: { statsCacheMs: 0 } },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { metrics: runtime.metrics, sinks: runtime.sinks });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1280, height: 800 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await app?.close();
    await runtime?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('asks for a token, then shows the topics', async () => {
    await api('POST', '/v1/jobs', {
      topic: 'orders',
      id: 'order-42-close',
      bizKey: 'order-42',
      delayMs: 10 * MINUTE,
      body: { order: 42, action: 'close' },
    });
    await page.goto(`${url}/console/`);
    await page.locator('input[name=token]').fill('wrong-token-0000000000');
    await page.locator('button[type=submit]').click();
    await page.getByText('That token was refused.').waitFor();
    await page.locator('input[name=token]').fill(TOKEN);
    await page.locator('button[type=submit]').click();
    const row = page.locator('#topics tr[data-topic=orders]');
    await row.waitFor();
    expect(await row.locator('td[data-state=delayed]').textContent()).toBe('1');
    await page.screenshot({ path: join(SHOTS, 'topics.png') });
  });

  it('finds a job by bizKey, shows its timeline and body, and cancels it', async () => {
    await page.goto(`${url}/console/#/jobs`);
    await page.locator('input[name=bizKey]').fill('order-42');
    await page.locator('form button[type=submit]').click();
    await page.locator('#jobs tr[data-id="order-42-close"] a').click();
    await page.locator('#timeline li[data-event=push]').waitFor();
    expect(await page.locator('#job-state').textContent()).toBe('delayed');
    expect(JSON.parse((await page.locator('#job-body').textContent())!)).toEqual({ order: 42, action: 'close' });
    await page.screenshot({ path: join(SHOTS, 'job.png') });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#timeline li[data-event=cancel]').waitFor();
    expect(await page.locator('#job-state').textContent()).toBe('cancelled');
    expect((await api('GET', '/v1/jobs/order-42-close')).body.job.state).toBe('cancelled');
  });

  it('lists a dead job and redrives it', async () => {
    await api('POST', '/v1/jobs', { topic: 'payments', id: 'pay-7', retry: { maxAttempts: 1 } });
    const reserved = await api('POST', '/v1/reserve', { topics: ['payments'] });
    const token = reserved.body.reservations[0].token;
    expect((await api('POST', '/v1/jobs/pay-7/fail', { token, error: 'card declined' })).body.job.state).toBe('dead');
    await page.goto(`${url}/console/#/dead?topic=payments`);
    const row = page.locator('#dead tr[data-id="pay-7"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('card declined');
    await page.screenshot({ path: join(SHOTS, 'dead.png') });
    await row.getByRole('button', { name: 'Redrive' }).click();
    await page.getByText('redriven: 1').waitFor();
    expect((await api('GET', '/v1/jobs/pay-7')).body.job.state).toBe('ready');
  });

  it('draws the due-time histogram of the jobs pushed', async () => {
    const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
    const at = [150, 156, 162, 1830].map((s) => minute + s * 1000);
    for (const [i, runAt] of at.entries())
      expect((await api('POST', '/v1/jobs', { topic: 'reminders', id: `r${i}`, runAt })).status).toBe(201);
    await page.goto(`${url}/console/#/due?topic=reminders`);
    await page.locator('#due-total').waitFor();
    expect(await page.locator('#due-total strong').textContent()).toBe('4');
    const bar = (start: number) => page.locator(`#histogram .bar[data-at="${start}"]`);
    expect(await bar(minute + 2 * MINUTE).getAttribute('data-count')).toBe('3');
    expect(await bar(minute + 30 * MINUTE).getAttribute('data-count')).toBe('1');
    await page.screenshot({ path: join(SHOTS, 'due-hour.png') });
    await page.locator('button[data-range=day]').click();
    await page.locator('#due-total').getByText('next day').waitFor();
    expect(await page.locator('#due-total strong').textContent()).toBe('4');
    const counts = await page
      .locator('#histogram .bar')
      .evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('data-count'))));
    expect(counts).toHaveLength(24);
    await page.screenshot({ path: join(SHOTS, 'due-day.png') });
  });
});
