/**
 * The web console in a real browser (playwright-core driving Debian's chromium) against a real server
 * with tokens: log in, find a job by bizKey, see its timeline, cancel it, redrive a dead job, read the
 * due-time histogram against jobs pushed here. Screenshots land in docs/console/ (docs/console.md).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';
import { launchBrowser, SHOTS, type Browser } from './browser.js';

const TOKEN = 'console-admin-token-0123';
const MINUTE = 60_000;

describe('web console', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let browser: Browser;
  let page: Page;
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
    app = await buildApp(runtime.service, config, {
      metrics: runtime.metrics,
      sinks: runtime.sinks,
      schedules: runtime.schedules,
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
    page = browser.page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await runtime?.close();
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

  it('reschedules a delayed job from its page', async () => {
    await api('POST', '/v1/jobs', { topic: 'invoices', id: 'inv-9', delayMs: 5 * MINUTE });
    await page.goto(`${url}/console/#/job/inv-9`);
    await page.locator('#job-state').getByText('delayed').waitFor();
    await page.locator('input[name=delay]').fill('2h');
    const before = runtime.service.clock.now(); // the clock the service stamps with
    await page.getByRole('button', { name: 'Reschedule' }).click();
    await page.locator('#action-message').getByText('reschedule: done').waitFor();
    await page.locator('#timeline li[data-event=reschedule]').waitFor();
    const runAt = (await api('GET', '/v1/jobs/inv-9')).body.job.runAt as number;
    expect(runAt).toBeGreaterThanOrEqual(before + 2 * 60 * MINUTE);
    expect(runAt).toBeLessThanOrEqual(runtime.service.clock.now() + 2 * 60 * MINUTE);
    await page.screenshot({ path: join(SHOTS, 'job-reschedule.png') });
  });

  it('pauses and resumes a topic from the overview', async () => {
    const paused = async () =>
      ((await api('GET', '/v1/stats')).body.topics as { topic: string; paused: boolean }[]).find(
        (t) => t.topic === 'mailers',
      )?.paused;
    await api('POST', '/v1/jobs', { topic: 'mailers', id: 'mail-1' });
    await page.goto(`${url}/console/#/topics`);
    const button = page.locator('#topics tr[data-topic=mailers] button');
    await button.getByText('pause', { exact: true }).click();
    await button.getByText('paused: resume').waitFor();
    expect(await paused()).toBe(true);
    expect((await api('POST', '/v1/reserve', { topics: ['mailers'] })).body.reservations).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'topics-paused.png') });
    await button.getByText('paused: resume').click();
    await button.getByText('pause', { exact: true }).waitFor();
    expect(await paused()).toBe(false);
    const reserved = await api('POST', '/v1/reserve', { topics: ['mailers'] });
    expect(reserved.body.reservations.map((r: { job: { id: string } }) => r.job.id)).toEqual(['mail-1']);
  });

  it('lists schedules and shows one with its next fires and its last fires with their jobs', async () => {
    const put = await api('PUT', '/v1/schedules/heartbeat', { topic: 'beats', everyMs: 1000, job: { body: 'beat' } });
    expect(put.status).toBe(201);
    await waitFor(
      async () => (await api('GET', '/v1/schedules/heartbeat')).body.schedule.fired >= 3,
      '3 fires',
      15_000,
    );
    await page.goto(`${url}/console/#/schedules`);
    const row = page.locator('#schedules tr[data-name=heartbeat]');
    await row.waitFor();
    expect(await row.textContent()).toContain('beats');
    await page.screenshot({ path: join(SHOTS, 'schedules.png') });
    await row.locator('a', { hasText: 'heartbeat' }).click();
    await page.locator('#next-fires li').first().waitFor();
    const next = await page.locator('#next-fires li').evaluateAll((li) => li.map((l) => Number(l.dataset['at'])));
    expect(next).toHaveLength(10);
    expect(next.every((at, i) => i === 0 || at - next[i - 1]! === 1000)).toBe(true);
    const last = page.locator('#last-fires tbody tr');
    await last.nth(2).waitFor();
    const ids = await last.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')!));
    const ticks = ids.map((id) => Number(id.split(':')[1]));
    expect(ids.every((id) => id.startsWith('heartbeat:'))).toBe(true);
    expect(ticks.every((t, i) => i === 0 || ticks[i - 1]! - t === 1000)).toBe(true); // newest first, one per tick
    expect(next[0]).toBeGreaterThan(ticks[0]!); // the next fires are the ticks not pushed yet
    const newest = (await api('GET', `/v1/jobs/${ids[0]}`)).body.job;
    expect(newest).toMatchObject({ topic: 'beats', body: 'beat', runAt: ticks[0] });
    expect(await last.first().locator('td').nth(2).textContent()).toBe(newest.state);
    await page.screenshot({ path: join(SHOTS, 'schedule.png') });
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('#schedule-state').getByText('paused').waitFor();
    expect(await page.locator('#next-fires li').count()).toBe(0);
    expect((await api('GET', '/v1/schedules/heartbeat')).body.schedule.paused).toBe(true);
    await api('DELETE', '/v1/schedules/heartbeat');
  });
});
