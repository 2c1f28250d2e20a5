import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../../src/server/app.js';
import type { RestoreHandler } from '../../../src/server/routes/mykit.js';
import type { DelayqService } from '../../../src/service/service.js';

/** Tokens used by the security tests: an admin (all topics) and a token limited to `orders.` topics. */
export const ADMIN_TOKEN = 'admin-secret-token-9f3a2c1d7e';
export const ORDERS_TOKEN = 'orders-secret-token-4b8e6a0f2d';
export const TOKENS = [
  { token: ADMIN_TOKEN, name: 'ops-admin' },
  { token: ORDERS_TOKEN, name: 'orders-app', topics: ['orders.'] },
];
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** A RestoreHandler that only counts calls: proves whether a request reached restore/clearAll at all. */
export class RecordingRestore implements RestoreHandler {
  calls: string[] = [];
  async restore(expire: boolean): Promise<string> {
    this.calls.push(`restore(${expire})`);
    return 'restored 0 jobs';
  }
  async restoreJob(id: string): Promise<string> {
    this.calls.push(`restoreJob(${id})`);
    return `restored ${id}`;
  }
  async clearAll(): Promise<string> {
    this.calls.push('clearAll');
    return 'cleared 0 jobs';
  }
}

export interface SecureServer {
  url: string;
  app: DelayqApp;
  service: DelayqService;
  runtime: DelayqRuntime;
  config: Readonly<Config>;
  restore: RecordingRestore;
  /** Every log line written so far (pino JSON lines), when `captureLogs` was asked for. */
  logText(): string;
  close(): Promise<void>;
}

/**
 * The real server (SQLite in memory, the runtime: service, delivery bindings, metrics; the Fastify app) listening on `port` — this helper's
 * ports are 7600–7699 — with authentication on unless `overrides.auth` says otherwise.
 */
export async function startSecureServer(
  port: number,
  options: { overrides?: Record<string, unknown>; captureLogs?: boolean; logLevel?: string } = {},
): Promise<SecureServer> {
  const config = loadConfig({
    env: {},
    overrides: { auth: { tokens: TOKENS }, ...options.overrides, sqlite: { path: ':memory:' } },
  });
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: options.captureLogs ? (options.logLevel ?? 'trace') : 'silent' }, sink);
  const runtime = createRuntime(config, { logger });
  await runtime.start();
  const service = runtime.service;
  const restore = new RecordingRestore();
  // The whole node, as `delayq serve` builds it (delivery bindings and /metrics included), plus restore/clearAll.
  const app = await buildApp(service, config, { logger, restore, sinks: runtime.sinks, metrics: runtime.metrics });
  const url = await app.listen({ host: '127.0.0.1', port });
  return {
    url,
    app,
    service,
    runtime,
    config,
    restore,
    logText: () => chunks.join(''),
    async close() {
      await closeGracefully(app, runtime, 100);
    },
  };
}
