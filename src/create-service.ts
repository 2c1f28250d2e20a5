/**
 * The composition root of the queue: Config → backend (+ journal) → DelayqService. The HTTP server, the
 * CLI and embedding applications all start here; runtime.ts adds delivery and the schedule runner.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { jobDefaultsOf } from './config.js';
import type { Clock } from './core/clock.js';
import { DelayqError } from './core/errors.js';
import { defaultNodeId } from './core/ids.js';
import type { Journal } from './journal/journal.js';
import { journaledBackend } from './journal/journaled-backend.js';
import { MysqlJournal } from './journal/sql/mysql/mysql-journal.js';
import { PostgresJournal } from './journal/sql/postgres/postgres-journal.js';
import { DelayqService } from './service/service.js';
import type { Backend } from './store/backend.js';
import { createBackend } from './store/create-backend.js';
import type { Store } from './store/store.js';

export interface CreateServiceOptions {
  logger?: Logger;
  clock?: Clock;
  /** Use this backend instead of the one the config names (createRuntime hands over the one it made). */
  backend?: Backend;
  /** Use this job store instead of the backend's (tests, custom stores). */
  store?: Store;
}

/** This process's name in job history: config's nodeId, else host:pid. */
export function nodeIdOf(config: Readonly<Config>): string {
  return config.nodeId || defaultNodeId(hostname(), process.pid);
}

/** The job store the config names (the backend's jobs), without its journal. */
export function createStore(config: Readonly<Config>, nodeId: string): Store {
  return createBackend(config, nodeId).jobs;
}

/** The SQL journal the config names, or undefined. */
export function createJournal(config: Readonly<Config>): Journal | undefined {
  const { kind, url, schema } = config.journal;
  if (kind === 'none') return undefined;
  if (!url)
    throw new DelayqError('E_CONFIG', `journal.url: required when journal.kind is ${kind}`, { field: 'journal.url' });
  return kind === 'postgres' ? new PostgresJournal({ connectionString: url, schema }) : new MysqlJournal({ uri: url });
}

/** The backend the config names, its jobs and schedules wrapped in the journal when there is one. */
export function createJournaledBackend(config: Readonly<Config>, nodeId: string, logger?: Logger): Backend {
  const backend = createBackend(config, nodeId);
  const journal = createJournal(config);
  if (!journal) return backend;
  return journaledBackend(backend, journal, {
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
export function createService(config: Readonly<Config>, options: CreateServiceOptions = {}): DelayqService {
  const nodeId = nodeIdOf(config);
  const store = options.store ?? (options.backend ?? createJournaledBackend(config, nodeId, options.logger)).jobs;
  return new DelayqService({
    store,
    nodeId,
    jobDefaults: jobDefaultsOf(config),
    timer: { ...config.scheduler },
    retentionByTopic: config.jobs.retentionByTopic,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}
