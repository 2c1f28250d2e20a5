/**
 * A whole delayq node as `delayq serve` builds it (runtime: service, schedules, delivery bindings, metrics; the
 * HTTP app; the gRPC server), on any store shape, with three tokens: an admin, and two tenants limited to
 * `orders.` and `billing.` topics. The tenant tests run the same checks on each shape.
 */
import { loadConfig, type Config } from '../../../src/config.js';
import { DelayqGrpcServer } from '../../../src/grpc/grpc-server.js';
import { createRuntime, type DelayqRuntime } from '../../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../../src/server/app.js';
import { PG_URL, MYSQL_URL, type JournalDatabase } from '../../helpers/journal-databases.js';

export const ADMIN = 'tenant-admin-token-5e1c9a';
export const ORDERS = 'tenant-orders-token-2b7f04';
export const BILLING = 'tenant-billing-token-8d3a61';
export const TENANT_TOKENS = [
  { token: ADMIN, name: 'admin' },
  { token: ORDERS, name: 'orders', topics: ['orders.'] },
  { token: BILLING, name: 'billing', topics: ['billing.'] },
];

export interface TenantNode {
  url: string;
  grpcTarget: string;
  runtime: DelayqRuntime;
  app: DelayqApp;
  config: Readonly<Config>;
  close(): Promise<void>;
}

/** Store settings of a shape; `prefix` isolates Redis keys, `database` holds the journal's tables. */
export type Shape = (prefix: string, database?: JournalDatabase) => Record<string, unknown>;

export const SHAPES: Record<string, { journal?: 'postgres' | 'mysql'; overrides: Shape }> = {
  embedded: { overrides: () => ({ store: { kind: 'sqlite' }, sqlite: { path: ':memory:' } }) },
  redis: {
    overrides: (prefix) => ({
      store: { kind: 'redis' },
      redis: { url: 'redis://127.0.0.1:6379', prefix, partitions: 2 },
    }),
  },
  'redis + postgresql': {
    journal: 'postgres',
    overrides: (prefix, database) => ({
      store: { kind: 'redis' },
      redis: { url: 'redis://127.0.0.1:6379', prefix },
      journal: { kind: 'postgres', url: PG_URL, schema: database!.name, restoreMode: 'manual' },
    }),
  },
  'redis + mariadb': {
    journal: 'mysql',
    overrides: (prefix, database) => ({
      store: { kind: 'redis' },
      redis: { url: 'redis://127.0.0.1:6379', prefix },
      journal: { kind: 'mysql', url: `${MYSQL_URL}/${database!.name}`, restoreMode: 'manual' },
    }),
  },
};

export async function startTenantNode(overrides: Record<string, unknown>): Promise<TenantNode> {
  const config = loadConfig({
    env: {},
    overrides: { ...overrides, auth: { tokens: TENANT_TOKENS }, schedules: { leadMs: 500, refreshIntervalMs: 200 } },
  });
  const runtime = createRuntime(config);
  await runtime.start();
  const app = await buildApp(runtime.service, config, {
    sinks: runtime.sinks,
    schedules: runtime.schedules,
    metrics: runtime.metrics,
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const grpc = new DelayqGrpcServer(runtime.service, config);
  const port = await grpc.listen(0, '127.0.0.1');
  return {
    url,
    grpcTarget: `127.0.0.1:${port}`,
    runtime,
    app,
    config,
    async close() {
      await grpc.close(100);
      await closeGracefully(app, runtime, 100);
    },
  };
}

/** One HTTP call with a bearer token; the body parsed when it is JSON, else the text. */
export async function call(
  url: string,
  token: string | null,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, body, text };
}
