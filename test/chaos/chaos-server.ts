// Child-process entry point of the chaos suite: one delayq HTTP server over the store the parent names,
// composed by hand until the CLI can select Redis and the journal. The parent kills it with SIGKILL.
// argv[2]: JSON ChaosServerSpec. Prints `READY <url>` once listening.
import { pino } from 'pino';
import { BeanstalkdServer } from '../../src/beanstalkd/server.js';
import { loadConfig } from '../../src/config.js';
import type { Clock } from '../../src/core/clock.js';
import { createService } from '../../src/create-service.js';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { MysqlJournal } from '../../src/journal/sql/mysql/mysql-journal.js';
import { PostgresJournal } from '../../src/journal/sql/postgres/postgres-journal.js';
import { JournalLoader } from '../../src/timer/loader.js';
import { buildApp } from '../../src/server/app.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

export interface ChaosServerSpec {
  port: number;
  nodeId: string;
  store: 'sqlite' | 'redis' | 'redis+postgres' | 'redis+mysql';
  sqlitePath?: string;
  redisUrl?: string;
  redisPrefix?: string;
  /** PostgreSQL schema of the journal (redis+postgres). */
  pgSchema?: string;
  /** PostgreSQL connection string of the journal (redis+postgres). @defaultValue the shared test server */
  pgUrl?: string;
  /** MariaDB/MySQL database URI of the journal (redis+mysql). */
  mysqlUri?: string;
  /** The journal's reconciliation settle time, ms (default: the store's). */
  reconcileSettleMs?: number;
  /** Redis command timeout, ms. */
  redisCommandTimeoutMs?: number;
  /** Loader round interval (journal), ms. */
  loaderIntervalMs?: number;
  /** Also serve beanstalkd's protocol on this port. */
  beanstalkdPort?: number;
  logLevel?: string;
}

const spec = JSON.parse(process.argv[2]!) as ChaosServerSpec;
const logger = pino({ level: spec.logLevel ?? 'warn', base: { node: spec.nodeId } }, pino.destination(2));
const config = loadConfig({
  env: {},
  overrides: {
    http: { host: '127.0.0.1', port: spec.port },
    nodeId: spec.nodeId,
    ...(spec.sqlitePath ? { sqlite: { path: spec.sqlitePath } } : {}),
    log: { level: spec.logLevel ?? 'warn' },
  },
});

let store: Store;
let clock: Clock | undefined;
let journaled: JournaledStore | undefined;
if (spec.store === 'sqlite') {
  store = new SqliteStore({ path: spec.sqlitePath!, nodeId: spec.nodeId });
} else {
  const redis = new RedisStore({
    url: spec.redisUrl!,
    nodeId: spec.nodeId,
    prefix: spec.redisPrefix ?? 'dq',
    ...(spec.redisCommandTimeoutMs === undefined ? {} : { commandTimeoutMs: spec.redisCommandTimeoutMs }),
  });
  // Several processes share this Redis: they agree on Redis's clock.
  clock = redis.clock;
  store = redis;
  if (spec.store === 'redis+postgres' || spec.store === 'redis+mysql') {
    const journal =
      spec.store === 'redis+postgres'
        ? new PostgresJournal({
            connectionString: spec.pgUrl ?? 'postgres://postgres@127.0.0.1:5432/test',
            schema: spec.pgSchema!,
            maxConnections: 4,
          })
        : new MysqlJournal({ uri: spec.mysqlUri!, maxConnections: 4 });
    const settle = spec.reconcileSettleMs === undefined ? {} : { reconcileSettleMs: spec.reconcileSettleMs };
    journaled = new JournaledStore(redis, journal, { nodeId: spec.nodeId, clock: redis.clock, logger, ...settle });
    store = journaled;
  }
}

const service = createService(config, { store, logger, ...(clock ? { clock } : {}) });
await service.start();
const loader = journaled
  ? new JournalLoader(
      journaled,
      service.clock,
      { onError: (err) => logger.warn({ err }, 'loader round failed') },
      { intervalMs: spec.loaderIntervalMs ?? 500 },
    )
  : undefined;
loader?.start();
const app = await buildApp(service, config, { logger });
const url = await app.listen({ host: '127.0.0.1', port: spec.port });
const beanstalkd = spec.beanstalkdPort
  ? new BeanstalkdServer(service, { host: '127.0.0.1', port: spec.beanstalkdPort, maxJobSize: 65_536, logger })
  : undefined;
await beanstalkd?.listen();
// Test hook: SIGUSR2 collects garbage (the parent starts us with --expose-gc) and reports the heap, so a
// leak shows as growth of live memory rather than of RSS, which V8 gives back lazily.
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  process.stdout.write(JSON.stringify({ type: 'heap', heapUsed, rss, waiting: service.waitingConsumers }) + '\n');
});

process.stdout.write(`READY ${url}\n`);

process.once('SIGTERM', () => {
  void (async () => {
    await loader?.stop();
    await beanstalkd?.close();
    await app.close();
    await service.close();
    process.exit(0);
  })();
});
