/**
 * What the console tests run against: one embedded node, or two nodes on one Redis (the pages served by
 * either, the figures the same). Each is a full runtime with the HTTP API, sinks, schedules and metrics,
 * behind a bearer token.
 */
import { buildConsole } from '../../scripts/build-console.mjs';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';

export const TOKEN = 'console-admin-token-0123';

export interface ConsoleTarget {
  /** The base URL of each node serving the pages. */
  urls: string[];
  runtimes: DelayqRuntime[];
  /** Whether the store keeps groups (docs/flow-control.md "Groups"): the Redis store refuses them for now. */
  groups: boolean;
  /** The API of node `at` (0 by default), with the token. */
  api(method: string, path: string, json?: unknown, at?: number): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

async function startNode(
  overrides: Record<string, unknown>,
): Promise<{ runtime: DelayqRuntime; app: DelayqApp; url: string }> {
  const config = loadConfig({
    env: {},
    overrides: {
      auth: { tokens: [{ token: TOKEN, name: 'console-admin' }] },
      metrics: { statsCacheMs: 0 },
      sinks: { refreshIntervalMs: 200 },
      schedules: { leadMs: 500, refreshIntervalMs: 200 },
      ...overrides,
    },
  });
  const runtime = createRuntime(config);
  await runtime.start();
  const app = await buildApp(runtime.service, config, {
    metrics: runtime.metrics,
    sinks: runtime.sinks,
    schedules: runtime.schedules,
  });
  return { runtime, app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
}

function target(
  nodes: { runtime: DelayqRuntime; app: DelayqApp; url: string }[],
  after = async () => {},
): ConsoleTarget {
  return {
    urls: nodes.map((n) => n.url),
    groups: nodes[0]!.runtime.service.store.capabilities.groups,
    runtimes: nodes.map((n) => n.runtime),
    api: (method, path, json, at = 0) =>
      http(nodes[at % nodes.length]!.url, method, path, {
        ...(json === undefined ? {} : { json }),
        headers: { authorization: `Bearer ${TOKEN}` },
      }),
    async close() {
      for (const n of nodes) await closeGracefully(n.app, n.runtime, 100);
      await after();
    },
  };
}

export async function embeddedTarget(): Promise<ConsoleTarget> {
  await buildConsole();
  return target([await startNode({ sqlite: { path: ':memory:' } })]);
}

/** Two nodes on one Redis (127.0.0.1:6379, a prefix of their own, swept at the end). */
export async function redisPairTarget(): Promise<ConsoleTarget> {
  await buildConsole();
  const prefixes = prefixPool('console');
  const prefix = prefixes.next();
  const node = (nodeId: string) =>
    startNode({ nodeId, store: { kind: 'redis' }, redis: { url: 'redis://127.0.0.1:6379', prefix, partitions: 2 } });
  return target([await node('console-a'), await node('console-b')], () => prefixes.sweep());
}
