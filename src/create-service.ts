/**
 * The composition root: Config → store → DelayqService. The only module (with service.ts) that knows the
 * concrete stores. The HTTP server, the CLI and embedding applications all start here.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { retryPolicyOf } from './config.js';
import type { Clock } from './core/clock.js';
import { DelayqError } from './core/errors.js';
import { DelayqService } from './service.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import type { Store } from './store/store.js';
import { hostname } from 'node:os';
import { defaultNodeId } from './core/ids.js';

export interface CreateServiceOptions {
  logger?: Logger;
  clock?: Clock;
  /** Use this store instead of the one the config names (tests, custom stores). */
  store?: Store;
}

/** Builds the store the config names. */
export function createStore(config: Config, nodeId: string): Store {
  switch (config.store.kind) {
    case 'sqlite': {
      if (config.sqlite.path !== ':memory:') mkdirSync(dirname(config.sqlite.path), { recursive: true });
      return new SqliteStore({ path: config.sqlite.path, nodeId, synchronous: config.sqlite.synchronous });
    }
    case 'redis':
      // The lead wires RedisStore here (config.redis.url / prefix / partitions) when its branch lands.
      throw new DelayqError('E_CONFIG', `config store.kind: "redis" is not available in this build (redis.url ${config.redis.url})`, {
        field: 'store.kind',
      });
  }
}

/** A DelayqService for this configuration; call `start()` before use and `close()` at the end. */
export function createService(config: Config, options: CreateServiceOptions = {}): DelayqService {
  const nodeId = config.nodeId || defaultNodeId(hostname(), process.pid);
  const store = options.store ?? createStore(config, nodeId);
  return new DelayqService({
    store,
    nodeId,
    jobDefaults: { ttrMs: config.jobs.ttrMs, bodyMaxBytes: config.jobs.bodyMaxBytes, retry: retryPolicyOf(config) },
    scheduler: { ...config.scheduler },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
