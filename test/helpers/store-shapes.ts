/**
 * The four shapes delayq runs in, for tests that must hold in each: embedded SQLite (one process), Redis,
 * and Redis with a PostgreSQL or MariaDB journal (several instances on one store). `instances(n)` starts n
 * whole nodes (runtime + HTTP API + /metrics) on one store of the shape.
 */
import type { Clock } from '../../src/core/clock.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import {
  MYSQL_URL,
  mysqlJournalDatabase,
  PG_URL,
  postgresJournalDatabase,
  type JournalDatabase,
} from './journal-databases.js';
import { prefixPool } from './redis-prefix.js';

export const STORE_SHAPES = ['embedded', 'redis', 'redis+postgres', 'redis+mysql'] as const;
export type StoreShape = (typeof STORE_SHAPES)[number];
/** The shapes where several instances share one store. */
export const SHARED_SHAPES = ['redis', 'redis+postgres', 'redis+mysql'] as const;

export interface Instance {
  url: string;
  runtime: DelayqRuntime;
  app: DelayqApp;
  close(): Promise<void>;
}

export interface ShapeHarness {
  /** Starts `count` instances on one fresh store of the shape (a new Redis prefix; the journal emptied). */
  instances(count: number, options?: { clock?: Clock; overrides?: Record<string, unknown> }): Promise<Instance[]>;
  /** Closes the instances started so far. */
  close(): Promise<void>;
  /** Closes them, sweeps the Redis prefixes and drops the journal database. */
  cleanup(): Promise<void>;
}

export function shapeHarness(shape: StoreShape, label: string): ShapeHarness {
  const prefixes = prefixPool(label);
  let database: JournalDatabase | undefined;
  const started: Instance[] = [];

  async function storeOverrides(): Promise<Record<string, unknown>> {
    if (shape === 'embedded') return { sqlite: { path: ':memory:' } };
    const redis = { store: { kind: 'redis' }, redis: { url: 'redis://127.0.0.1:6379', prefix: prefixes.next() } };
    if (shape === 'redis') return redis;
    if (shape === 'redis+postgres') {
      database ??= await postgresJournalDatabase();
      await database.truncate();
      return { ...redis, journal: { kind: 'postgres', url: PG_URL, schema: database.name } };
    }
    database ??= await mysqlJournalDatabase();
    await database.truncate();
    return { ...redis, journal: { kind: 'mysql', url: `${MYSQL_URL}/${database.name}` } };
  }

  return {
    async instances(count, options = {}) {
      if (shape === 'embedded' && count > 1) throw new Error('an embedded store belongs to one process');
      const overrides = { ...(await storeOverrides()), ...options.overrides };
      const out: Instance[] = [];
      for (let i = 0; i < count; i++) {
        const config = loadConfig({ env: {}, overrides });
        const runtime = createRuntime(config, options.clock ? { clock: options.clock } : {});
        await runtime.start();
        const app = await buildApp(runtime.service, config, { metrics: runtime.metrics, sinks: runtime.sinks });
        const url = await app.listen({ host: '127.0.0.1', port: 0 });
        const instance: Instance = { url, runtime, app, close: () => closeGracefully(app, runtime, 100) };
        started.push(instance);
        out.push(instance);
      }
      return out;
    },
    async close() {
      for (const instance of started.splice(0)) await instance.close();
    },
    async cleanup() {
      await this.close();
      await prefixes.sweep();
      await database?.drop();
      database = undefined;
    },
  };
}
