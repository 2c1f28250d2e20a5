/**
 * The console's overview in every shape: its rates and lateness p99 are the store's over the last five
 * minutes, so consoles served by two instances of one store show the same figures, and a start-up backlog
 * that waited ten minutes no longer weighs on the p99 once those minutes have passed (the server runs on a
 * fake clock for that).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';
import { FakeClock } from '../helpers/fake-clock.js';
import { finishJob, pushJob, reserveJobs } from '../helpers/known-traffic.js';
import { STORE_SHAPES, shapeHarness } from '../helpers/store-shapes.js';
import { launchBrowser, type Browser } from '../../scripts/console-browser.js';

const MINUTE = 60_000;

let browser: Browser;
beforeAll(async () => {
  await buildConsole();
  browser = await launchBrowser();
}, 120_000);
afterAll(() => browser?.close());

describe.each(STORE_SHAPES)('console overview on %s', (shape) => {
  const harness = shapeHarness(shape, 'console');
  afterEach(() => harness.close());
  afterAll(() => harness.cleanup());

  it('shows the same recent store-wide rates and p99, whichever instance serves it', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const instances = await harness.instances(shape === 'embedded' ? 1 : 2, { clock });
    const [a, b] = [instances[0]!, instances.at(-1)!];
    // Twenty jobs wait ten minutes for a consumer on B; six minutes later five more go out on time.
    for (let i = 0; i < 20; i++) await pushJob(a.url, { topic: 'mail' });
    clock.advance(10 * MINUTE);
    for (const r of await reserveJobs(b.url, ['mail'], 20)) await finishJob(b.url, r);
    clock.advance(6 * MINUTE);
    for (let i = 0; i < 6; i++) await pushJob(a.url, { topic: 'mail' });
    const onTime = await reserveJobs(b.url, ['mail'], 5);
    for (const r of onTime.slice(0, 3)) await finishJob(a.url, r);

    const shown: string[][] = [];
    for (const { url } of instances) {
      const page = browser.page;
      await page.goto(`${url}/console/#/topics`);
      const row = page.locator('#topics tr[data-topic=mail]');
      await row.waitFor();
      const cell = (figure: string) => row.locator(`td[data-figure=${figure}]`).textContent();
      // Push and finish per second over the last five minutes (and a slot: 300–310 s), and the p99 of 5 on-time reservations.
      await row.locator('td[data-figure=lateness-p99]').filter({ hasNotText: '—' }).waitFor();
      shown.push([(await cell('push-rate'))!, (await cell('finish-rate'))!, (await cell('lateness-p99'))!]);
    }
    expect(shown[0]).toEqual(['0.02', '0.01', '1 ms']);
    expect(shown.at(-1)).toEqual(shown[0]);
  });
});
