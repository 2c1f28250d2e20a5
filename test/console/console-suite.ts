/**
 * The console in a real browser (playwright-core driving Debian's chromium), the same tests on every target
 * (console-targets.ts): one embedded node, or two nodes on one Redis, where each page is opened on one node
 * or the other and the figures must be the same whichever serves them.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { launchBrowser, type Browser } from '../../scripts/console-browser.js';
import type { ConsoleTarget } from './console-targets.js';
import { TOKEN } from './console-targets.js';
import { actionTests } from './console-actions.js';
import { chartTests } from './console-charts.js';
import { viewTests } from './console-views.js';

/** The page's time zone: the job page shows each time in UTC and in this zone. */
export const VIEWER_ZONE = 'Asia/Shanghai';

export interface SuiteContext {
  target(): ConsoleTarget;
  page(): Page;
  /** Opens `#<path>` on node `at` (round robin). */
  open(path: string, at?: number): Promise<void>;
  /** Opens `#<path>` on every node in turn and reads the same figures on each; they must be equal. */
  onEveryNode<T>(path: string, read: () => Promise<T>): Promise<T>;
  /** Waits for the confirmation dialog, checks it says `says`, presses its action button. */
  confirm(says: string | RegExp): Promise<void>;
}

export function consoleSuite(label: string, start: () => Promise<ConsoleTarget>): void {
  // A browser test waits on rendering as well as the server: on a loaded host (the suite runs beside others) a
  // view can take seconds. A locator gives up first, so that a failure names what it waited for.
  describe(`web console (${label})`, { timeout: 60_000 }, () => {
    let t: ConsoleTarget;
    let browser: Browser;
    beforeAll(async () => {
      t = await start();
      browser = await launchBrowser({ token: TOKEN, timezoneId: VIEWER_ZONE });
      browser.page.setDefaultTimeout(40_000);
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await t?.close();
    });

    const context: SuiteContext = {
      target: () => t,
      page: () => browser.page,
      async open(path, at = 0) {
        const url = `${t.urls[at % t.urls.length]}/console/#${path}`;
        // the same URL again is no navigation at all: load the page afresh instead
        if (browser.page.url() === url) await browser.page.reload();
        else await browser.page.goto(url);
      },
      async onEveryNode(path, read) {
        const seen = [];
        for (let at = 0; at < t.urls.length; at++) {
          await context.open(path, at);
          seen.push(await read());
        }
        for (const other of seen.slice(1)) expect(other).toEqual(seen[0]);
        return seen[0]!;
      },
      async confirm(says) {
        const dialog = browser.page.locator('#confirm');
        await dialog.waitFor();
        const text = (await dialog.locator('p').textContent()) ?? '';
        if (typeof says === 'string') expect(text).toContain(says);
        else expect(text).toMatch(says);
        await dialog.locator('button.danger').click();
        await dialog.waitFor({ state: 'detached' });
      },
    };
    viewTests(context);
    actionTests(context);
    chartTests(context);
  });
}
