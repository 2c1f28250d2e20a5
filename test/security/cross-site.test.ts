/**
 * A web page of another origin changes nothing on a default delayq (no tokens, loopback), in a real
 * browser (playwright-core driving Debian's chromium): its no-cors fetches, a form post and an image
 * pointing at a seed endpoint that changes state all reach the server and are refused, while the console
 * (same origin) still pauses a topic, and programs without Origin (curl, the SDKs) still cancel. A name
 * rebound to 127.0.0.1 (DNS rebinding) gets nothing either, reads included. docs/security.md.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';
import { launchBrowser, type Browser } from '../../scripts/console-browser.js';

/** The attacker's page: every way a page can send a request without asking the server first. */
function attackPage(target: string): string {
  return `<!doctype html><html><body>
<form id="f" method="post" action="${target}/v1/jobs/victim-form/cancel" target="sink"></form>
<iframe name="sink"></iframe>
<script>
  const posts = [
    fetch('${target}/v1/jobs/victim-fetch/cancel', { method: 'POST', mode: 'no-cors' }),
    fetch('${target}/v1/topics/victim-topic/pause', { method: 'POST', mode: 'no-cors' }),
    fetch('${target}/v1/jobs/victim-fetch/cancel', { method: 'POST', mode: 'no-cors', body: '{}' }),
    fetch('${target}/v1/reserve', { method: 'POST', mode: 'no-cors', body: '{"topics":["victim-topic"]}' }),
  ];
  const image = new Promise((done) => {
    const img = new Image();
    img.onload = img.onerror = done;
    img.src = '${target}/delete?jobId=victim-image';
  });
  const form = new Promise((done) => {
    document.querySelector('iframe').onload = done;
    document.getElementById('f').submit();
  });
  Promise.allSettled([...posts, image, form]).then(() => { document.title = 'done'; });
</script></body></html>`;
}

describe('requests from web pages of another origin', () => {
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;
  let port: number;
  let attacker: Server;
  let attackerUrl: string;
  let browser: Browser;
  let page: Page;
  /** What reached the server: method, path, status and the browser's own headers. */
  const seen: { method: string; url: string; status: number; site?: string; origin?: string }[] = [];

  beforeAll(async () => {
    await buildConsole();
    const config = loadConfig({ env: {}, overrides: { sqlite: { path: ':memory:' } } }); // no tokens: the default
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { metrics: runtime.metrics, schedules: runtime.schedules });
    app.addHook('onResponse', async (request, reply) => {
      const site = request.headers['sec-fetch-site'];
      const origin = request.headers.origin;
      seen.push({
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ...(typeof site === 'string' ? { site } : {}),
        ...(origin ? { origin } : {}),
      });
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(attackPage(url));
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
    // rebind.test resolves to 127.0.0.1, as a rebound DNS name would.
    browser = await launchBrowser({ args: ['--host-resolver-rules=MAP rebind.test 127.0.0.1'] });
    page = browser.page;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await app?.close();
    await runtime?.close();
  });

  const push = (id: string, topic = 'victim-topic') =>
    http(url, 'POST', '/v1/jobs', { json: { id, topic, delayMs: 3_600_000, body: { id } } });
  const stateOf = async (id: string) => (await http(url, 'GET', `/v1/jobs/${id}`)).body.job.state;
  const pausedOf = async (topic: string) =>
    ((await http(url, 'GET', '/v1/stats')).body.topics as { topic: string; paused: boolean }[]).find(
      (t) => t.topic === topic,
    )?.paused;

  it('a page on another port changes nothing: its requests reach the server and are refused', async () => {
    for (const id of ['victim-fetch', 'victim-form', 'victim-image']) expect((await push(id)).status).toBe(201);
    await http(url, 'POST', '/v1/jobs', { json: { id: 'victim-ready', topic: 'victim-topic' } });
    await page.goto(attackerUrl);
    await page.waitForFunction('document.title === "done"');

    for (const id of ['victim-fetch', 'victim-form', 'victim-image']) expect(await stateOf(id)).toBe('delayed');
    expect(await stateOf('victim-ready')).toBe('ready'); // not reserved by the page
    expect(await pausedOf('victim-topic')).toBe(false);
    // Each way in arrived with the browser's marks and was refused with 403.
    const fromPage = seen.filter((s) => s.site === 'same-site');
    for (const path of [
      '/v1/jobs/victim-fetch/cancel',
      '/v1/topics/victim-topic/pause',
      '/v1/reserve',
      '/v1/jobs/victim-form/cancel',
      '/delete?jobId=victim-image',
    ]) {
      const hits = fromPage.filter((s) => s.url === path);
      expect({ path, hits: hits.length > 0 }).toEqual({ path, hits: true });
      expect(hits.every((s) => s.status === 403)).toBe(true);
    }
  });

  it('the console, served by the server itself, still pauses a topic; a program still cancels', async () => {
    await push('console-job', 'console-topic');
    await page.goto(`${url}/console/#/topics`);
    const button = page.locator('#topics tr[data-topic=console-topic] button');
    await button.getByText('pause', { exact: true }).click();
    await page.locator('#confirm').getByRole('button', { name: 'Pause console-topic' }).click();
    await button.getByText('paused: resume').waitFor();
    expect(await pausedOf('console-topic')).toBe(true);
    const fromConsole = seen.filter((s) => s.url === '/v1/topics/console-topic/pause');
    expect(fromConsole.map((s) => [s.site, s.status])).toEqual([['same-origin', 200]]);
    // curl's `-X POST …/cancel`: no body, no Origin.
    const cancelled = await fetch(`${url}/v1/jobs/console-job/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(await stateOf('console-job')).toBe('cancelled');
  });

  it('a name rebound to 127.0.0.1 reads nothing and changes nothing', async () => {
    expect((await push('victim-rebind')).status).toBe(201);
    const origin = `http://rebind.test:${port}`;
    await page.goto(`${origin}/health`);
    const answers = await page.evaluate(async () => {
      const read = await fetch('/v1/jobs/victim-rebind');
      const cancel = await fetch('/v1/jobs/victim-rebind/cancel', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return { read: [read.status, await read.text()], cancel: [cancel.status, await cancel.text()] };
    });
    expect(answers.read[0]).toBe(403);
    expect(JSON.parse(answers.read[1] as string).error).toMatchObject({ code: 'E_FORBIDDEN', field: 'host' });
    expect(answers.read[1]).not.toContain('victim-topic');
    expect(answers.cancel[0]).toBe(403);
    expect(await stateOf('victim-rebind')).toBe('delayed');
  });
});
