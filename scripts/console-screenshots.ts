/**
 * `npm run console:screenshots`: builds the console, seeds the demo (console-demo.ts) and takes every
 * screenshot of docs/console.md into docs/console/, through Debian's chromium. The restore-from-journal
 * picture needs a private redis-server and PostgreSQL on 127.0.0.1:5432 (db test); `--no-journal` skips it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { buildConsole } from './build-console.mjs';
import { launchBrowser } from './console-browser.js';
import { startDemo } from './console-demo.js';
import { loadConfig } from '../src/config.js';
import { createRuntime } from '../src/runtime.js';
import { buildApp, closeGracefully } from '../src/server/app.js';

const SHOTS = join(import.meta.dirname, '..', 'docs', 'console');
const DAY = 86_400_000;

async function shoot(page: Page, name: string, ready: string): Promise<void> {
  await page.locator(ready).first().waitFor();
  await page.waitForTimeout(300); // let the last answers render
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
  console.log(`docs/console/${name}.png`);
}

/** Like `shoot`, of one part of the page (`part`) however tall, once `ready` is there. */
async function shootPart(page: Page, name: string, part: string, ready: string): Promise<void> {
  await page.locator(ready).first().waitFor();
  await page.waitForTimeout(300);
  await page.locator(part).screenshot({ path: join(SHOTS, `${name}.png`) });
  console.log(`docs/console/${name}.png`);
}

async function demoShots(): Promise<void> {
  const demo = await startDemo();
  const browser = await launchBrowser({ timezoneId: 'Europe/Berlin' });
  const { page } = browser;
  const open = (path: string) => page.goto(`${demo.url}/console/#${path}`);
  try {
    await open('/topics?limit=20');
    await page.waitForTimeout(5500); // a second /metrics read, so the rates are filled in
    await shoot(page, 'topics', '#topics tbody tr');
    await open('/topics?has=dead&sort=dead');
    await shoot(page, 'topics-filtered', '#topics tr[data-topic="payments.capture"]');
    await open('/topic/mail.notify');
    await shoot(page, 'topic', '#over-time .charts figure[data-chart=backlog] svg');
    await open('/topic/mail.notify?window=6h');
    await shootPart(page, 'topic-6h', '#over-time', '#over-time[data-window="6h"] .charts svg');
    await open('/topics?window=1h');
    await shootPart(page, 'overview-charts', '#over-time', '#over-time .busiest svg');
    await open('/topic/orders.archive?window=15m');
    await shootPart(page, 'charts-empty', '#over-time', '#over-time .series-empty');
    await open('/running');
    await shoot(page, 'running', '#consumers tr[data-kind=long-poll]');
    await open('/jobs?bizKey=order-1010');
    await shoot(page, 'jobs', '#jobs tbody tr');
    await open(`/job/${demo.retriedJob}`);
    await shoot(page, 'job', '#timeline li[data-event=retry]');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await shoot(page, 'job-confirm', '#confirm');
    await page.getByRole('button', { name: 'Keep as is' }).click();
    await open(`/job/${demo.finishedJob}`);
    await shoot(page, 'job-outcome', '#outcome-result');
    await open('/bulk?bizKey=order-1010&action=cancel');
    await page.getByRole('button', { name: 'Count (dry run)' }).click();
    await shoot(page, 'bulk', '#bulk-progress[data-phase=counted]');
    await page.locator('#bulk button.danger').click();
    await shoot(page, 'bulk-confirm', '#confirm');
    await page.locator('#confirm button.danger').click();
    await shoot(page, 'bulk-done', '#bulk-progress[data-phase=done]');
    await open('/due?topic=orders.close');
    await shoot(page, 'due-hour', '#histogram .bar');
    await open('/due?range=day');
    await shoot(page, 'due-day', '#histogram .bar');
    await open('/dead?topic=payments.capture');
    await shoot(page, 'dead', '#dead tbody tr');
    await open('/schedules');
    await shoot(page, 'schedules', '#schedules tr[data-name=heartbeat]');
    await open('/schedule/heartbeat');
    await shoot(page, 'schedule', '#last-fires tbody tr');
    await open('/new-schedule');
    const year = new Date().getUTCFullYear() + (new Date().getUTCMonth() >= 2 ? 1 : 0);
    const change = Date.UTC(year, 2, 31) - new Date(Date.UTC(year, 2, 31)).getUTCDay() * DAY;
    const editor = page.locator('#schedule-editor');
    await editor.locator('input[name=name]').fill('spring-report');
    await editor.locator('input[name=topic]').fill('reports.nightly');
    await editor.locator('input[name=cron]').fill('0 30 2 * * *');
    await editor.locator('input[name=timeZone]').fill('Europe/Berlin');
    await editor.locator('input[name=startAt]').fill(new Date(change - 3 * DAY).toISOString().slice(0, 16));
    await editor.getByRole('button', { name: 'Preview next fires' }).click();
    await shoot(page, 'schedule-editor', '#preview-fires li.dst-change');
    await open('/sinks');
    await page.locator('#sinks tr[data-topic="orders.notify"]').getByRole('button', { name: 'Test' }).click();
    await shoot(page, 'sinks', '#sinks [data-field=test-result]');
  } finally {
    await browser.close();
    await demo.close();
  }
}

/** A free loopback port (asked of the OS, then given back). */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** A job restored from the journal after its Redis was wiped: a private redis-server and a PostgreSQL schema. */
async function journalShot(): Promise<void> {
  const port = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  const schema = `console_demo_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const browser = await launchBrowser({ timezoneId: 'Europe/Berlin' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const config = loadConfig({
      env: {},
      overrides: {
        nodeId: 'shop-1',
        store: { kind: 'redis' },
        redis: { url: `redis://127.0.0.1:${port}`, prefix: 'demo' },
        journal: { kind: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test', schema, restoreMode: 'manual' },
      },
    });
    const runtime = createRuntime(config);
    await runtime.start();
    const app = await buildApp(runtime.service, config, { sinks: runtime.sinks });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      await runtime.service.push({ topic: 'refunds', id: 'refund-3', bizKey: 'order-3', body: { eur: 12 } });
      const wipe = spawn('redis-cli', ['-p', String(port), 'FLUSHALL']);
      await new Promise((resolve) => wipe.on('exit', resolve));
      await browser.page.goto(`${url}/console/#/job/refund-3`);
      await browser.page.getByRole('button', { name: 'Restore from journal' }).click();
      await browser.page.locator('#confirm button.danger').click();
      await shoot(browser.page, 'job-restore', '#action-message');
    } finally {
      await closeGracefully(app, runtime, 100);
    }
  } finally {
    await browser.close();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    redis.kill();
  }
}

await buildConsole();
await demoShots();
if (!process.argv.includes('--no-journal')) await journalShot();
