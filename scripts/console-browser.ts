/**
 * Debian's chromium through playwright-core, as the console tests and the screenshot script drive it:
 * a throwaway profile, one page of 1280×800, optionally a bearer token already in every origin's
 * sessionStorage (the console reads it there) and a time zone for the page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export interface Browser {
  page: Page;
  close(): Promise<void>;
}

export interface BrowserOptions {
  /** Put in sessionStorage before any page script runs, as if the operator had logged in. */
  token?: string;
  /** The page's time zone (IANA), e.g. "Asia/Shanghai"; default the machine's. */
  timezoneId?: string;
  /** More command-line flags. */
  args?: readonly string[];
}

/** A headless chromium with a throwaway profile, one page of 1280×800. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'delayq-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      viewport: { width: 1280, height: 800 },
      ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        ...(options.args ?? []),
      ],
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  if (options.token !== undefined) {
    await context.addInitScript(`sessionStorage.setItem('delayq.token', ${JSON.stringify(options.token)})`);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
