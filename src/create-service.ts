/**
 * The composition root: Config → store → DelayqService. The only module (with service.ts) that knows the
 * concrete stores. The HTTP server, the CLI and embedding applications all start here.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { jobDefaultsOf } from './config.js';
import type { Clock } from './core/clock.js';
import { DelayqService } from './service/service.js';
import { RedisStore } from './store/redis/redis-store.js';
import { DEFAULT_PARTITIONS } from './store/redis/keys.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import type { Store } from './store/store.js';
import { DelayqError } from './core/errors.js';
import type { Journal } from './journal/journal.js';
import { JournaledStore } from './journal/journaled-store.js';
import { MysqlJournal } from './journal/mysql/mysql-journal.js';
import { PostgresJournal } from './journal/postgres/postgres-journal.js';
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
      return new SqliteStore({
        path: config.sqlite.path,
        nodeId,
        synchronous: config.sqlite.synchronous,
        eventsMaxLength: config.events.maxLength,
      });
    }
    case 'redis':
      return new RedisStore({
        url: config.redis.url,
        prefix: config.redis.prefix,
        partitions:
          config.redis.partitions || (config.redis.url.startsWith('redis-cluster://') ? DEFAULT_PARTITIONS : 1),
        commandTimeoutMs: config.redis.commandTimeoutMs,
        eventsMaxLength: config.events.maxLength,
        connectTimeoutMs: config.redis.connectTimeoutMs,
        nodeId,
      });
  }
}

/** The SQL journal the config names, or undefined. */
export function createJournal(config: Config): Journal | undefined {
  const { kind, url, schema } = config.journal;
  if (kind === 'none') return undefined;
  if (!url)
    throw new DelayqError('E_CONFIG', `journal.url: required when journal.kind is ${kind}`, { field: 'journal.url' });
  return kind === 'postgres' ? new PostgresJournal({ connectionString: url, schema }) : new MysqlJournal({ uri: url });
}

/** The store the config names, wrapped in the journal when there is one. */
export function createJournaledStore(config: Config, nodeId: string, logger?: Logger): Store {
  const inner = createStore(config, nodeId);
  const journal = createJournal(config);
  if (!journal) return inner;
  return new JournaledStore(inner, journal, {
    nodeId,
    horizonMs: config.journal.horizonMs,
    restoreMode: config.journal.restoreMode,
    innerRetentionMs: config.journal.innerRetentionMs,
    reconcileBatchSize: config.journal.reconcileBatchSize,
    reconcileSettleMs: config.journal.reconcileSettleMs,
    ...(logger ? { logger: logger.child({ component: 'journal' }) } : {}),
  });
}

/** A DelayqService for this configuration; call `start()` before use and `close()` at the end. */
export function createService(config: Config, options: CreateServiceOptions = {}): DelayqService {
  const nodeId = config.nodeId || defaultNodeId(hostname(), process.pid);
  const store = options.store ?? createJournaledStore(config, nodeId, options.logger);
  return new DelayqService({
    store,
    nodeId,
    jobDefaults: jobDefaultsOf(config),
    scheduler: { ...config.scheduler },
    retentionByTopic: config.jobs.retentionByTopic,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
