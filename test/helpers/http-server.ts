import { loadConfig, type Config } from '../../src/config.js';
import { createJournaledBackend, createService, nodeIdOf } from '../../src/create-service.js';
import { buildApp, closeGracefully, type BuildAppOptions, type DelayqApp } from '../../src/server/app.js';
import type { DelayqService } from '../../src/service/service.js';

export interface TestServer {
  url: string;
  app: DelayqApp;
  service: DelayqService;
  config: Readonly<Config>;
  close(): Promise<void>;
}

export interface StartOptions extends BuildAppOptions {
  overrides?: Record<string, unknown>;
  /** Wraps or replaces the service before the app is built (fault injection). */
  wrapService?: (service: DelayqService) => DelayqService;
}

/** The real thing on a random loopback port: SQLite in memory (unless overridden), the service, the Fastify app. */
export async function startServer(options: StartOptions = {}): Promise<TestServer> {
  const { overrides = {}, wrapService, ...appOptions } = options;
  const config = loadConfig({
    env: {},
    overrides: { ...overrides, sqlite: { path: ':memory:', ...(overrides['sqlite'] as object) } },
  });
  const backend = createJournaledBackend(config, nodeIdOf(config));
  let service = createService(config, { backend });
  if (wrapService) service = wrapService(service);
  await service.start();
  const app = await buildApp(service, config, { rateLimits: backend.rateLimits, ...appOptions });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    app,
    service,
    config,
    async close() {
      await closeGracefully(app, service, 100);
    },
  };
}

/** Raw HTTP as curl would send it. */
export async function http(
  url: string,
  method: string,
  path: string,
  options: { json?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] ??= 'application/json';
  } else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, body: parsed };
}

/** Polls `check` until it returns true or the deadline passes (no fixed sleeps in tests). */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
