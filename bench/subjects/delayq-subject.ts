// delayq in-process (DelayqService, as an embedding application or the HTTP server runs it) over the
// embedded store, Redis, or Redis with the SQL journal.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { JournaledStore } from '../../src/journal/journaled-store/journaled-store.js';
import { MysqlJournal } from '../../src/journal/sql/mysql/mysql-journal.js';
import { PostgresJournal } from '../../src/journal/sql/postgres/postgres-journal.js';
import { DelayqService } from '../../src/service/service.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { onCleanup, tempDir } from '../servers.js';
import { bodyFor, type Consumer, type OnJob, type Subject } from '../subject.js';
import { dropSqlDatabase, newSqlDatabase, type SqlTarget } from './sql-databases.js';

const TOPIC = 'bench';
const RESERVE_WAIT_MS = 1000;

/** `partitions`: RedisStore hash-tag buckets; the config's default (1) unless a run asks for more. */
export type DelayqBackend =
  | { kind: 'sqlite' }
  | { kind: 'redis'; port: number; partitions?: number }
  | { kind: 'journal'; port: number; sql: SqlTarget; partitions?: number };

export class DelayqSubject implements Subject {
  readonly family = 'delayq' as const;
  readonly resolutionMs = 1;
  readonly name: string;
  readonly memoryKind: string;
  readonly note: string;
  private readonly backend: DelayqBackend;
  private service: DelayqService | undefined;
  private admin: Redis | undefined;
  private sqlitePath = '';
  private sqlName: string | undefined;
  private generation = 0;
  private readonly dir: string | undefined;

  constructor(backend: DelayqBackend) {
    this.backend = backend;
    switch (backend.kind) {
      case 'sqlite':
        this.name = 'delayq · embedded';
        this.memoryKind = 'SQLite file bytes (disk, not RAM)';
        this.note = 'SQLite WAL, synchronous=NORMAL, in-process';
        this.dir = tempDir('sqlite');
        break;
      case 'redis':
        this.name = 'delayq · Redis';
        this.memoryKind = 'Redis used_memory';
        this.note = `RedisStore, ${backend.partitions ?? 1} partition(s), Redis hz 10 (default)`;
        this.dir = undefined;
        break;
      case 'journal':
        this.name = `delayq · Redis + ${backend.sql.dialect === 'postgres' ? 'PostgreSQL' : 'MariaDB'}`;
        this.memoryKind = 'Redis used_memory';
        this.note = `JournaledStore(RedisStore with ${backend.partitions ?? 1} partition(s), ${backend.sql.dialect} journal), horizon 1 h`;
        this.dir = undefined;
        break;
    }
  }

  get svc(): DelayqService {
    if (!this.service) throw new Error(`${this.name}: not open`);
    return this.service;
  }

  async open(): Promise<void> {
    if (this.backend.kind !== 'sqlite') {
      this.admin = new Redis({ host: '127.0.0.1', port: this.backend.port, lazyConnect: true });
      await this.admin.connect();
      await this.admin.flushall(); // our own benchmark Redis, never the shared 6379
    }
    await this.startService();
  }

  private async startService(): Promise<void> {
    const gen = this.generation++;
    const nodeId = 'bench';
    let store: Store;
    let clock;
    switch (this.backend.kind) {
      case 'sqlite':
        this.sqlitePath = join(this.dir!, `bench-${gen}.db`);
        store = new SqliteStore({ path: this.sqlitePath, nodeId });
        break;
      case 'redis': {
        const redis = new RedisStore({
          url: `redis://127.0.0.1:${this.backend.port}`,
          nodeId,
          partitions: this.backend.partitions ?? 1,
        });
        clock = redis.clock;
        store = redis;
        break;
      }
      case 'journal': {
        const redis = new RedisStore({
          url: `redis://127.0.0.1:${this.backend.port}`,
          nodeId,
          partitions: this.backend.partitions ?? 1,
        });
        clock = redis.clock;
        const sql = this.backend.sql;
        const name = await newSqlDatabase(sql);
        this.sqlName = name;
        onCleanup(() => dropSqlDatabase(sql, name));
        const journal =
          sql.dialect === 'postgres'
            ? new PostgresJournal({ connectionString: sql.url, schema: name })
            : new MysqlJournal({ uri: `${sql.url}/${name}` }); // MARIADB.url names no database
        store = new JournaledStore(redis, journal, { nodeId, clock: redis.clock });
        break;
      }
    }
    this.service = new DelayqService({ store, nodeId, ...(clock ? { clock } : {}) });
    await this.service.start();
  }

  async close(): Promise<void> {
    await this.service?.close();
    this.service = undefined;
    if (this.backend.kind === 'journal' && this.sqlName)
      await dropSqlDatabase(this.backend.sql, this.sqlName).catch(() => undefined);
    this.sqlName = undefined;
    await this.admin?.quit();
    this.admin = undefined;
  }

  async push(dueAt: number): Promise<void> {
    await this.svc.push({ topic: TOPIC, runAt: dueAt, body: bodyFor(dueAt) });
  }

  async pushBulk(dueAts: readonly number[]): Promise<void> {
    await this.svc.pushBatch(dueAts.map((dueAt) => ({ topic: TOPIC, runAt: dueAt, body: bodyFor(dueAt) })));
  }

  async memoryBytes(): Promise<number | undefined> {
    if (this.backend.kind === 'sqlite') {
      let bytes = 0;
      for (const suffix of ['', '-wal']) {
        try {
          bytes += statSync(this.sqlitePath + suffix).size;
        } catch {
          /* no WAL yet */
        }
      }
      return bytes;
    }
    return usedMemory(this.admin!);
  }

  serverCpuMs(): Promise<number | undefined> {
    return this.admin ? redisCpuMs(this.admin) : Promise.resolve(undefined);
  }

  commandCalls(): Promise<Map<string, { calls: number; usec: number }>> {
    return this.admin ? redisCommandCalls(this.admin) : Promise.resolve(new Map());
  }

  /**
   * A consumer as delayq's Worker runs one (src/client/worker.ts), calling the service in-process: the
   * `concurrency` slots shared by two reserve lanes, each long-polling reserve for its own free slots and
   * finishing each job (the finishes of one turn in one finishMany); never more than `concurrency` jobs held.
   * (`lanes` 1: the one loop the consumer had before; bench/probes/consumer-lanes.ts compares the two.)
   */
  async consume(concurrency: number, onJob: OnJob, lanes: 1 | 2 = 2): Promise<Consumer> {
    const service = this.svc;
    let stopped = false;
    const abort = new AbortController();
    const finishes = new Set<Promise<unknown>>();
    // As the Worker acknowledges (ack-batcher.ts): the finishes of one turn go to the store as one finishMany.
    let gathered: { id: string; token: string }[] = [];
    let settling: Promise<unknown> | undefined;
    const finish = (id: string, token: string): Promise<unknown> => {
      gathered.push({ id, token });
      return (settling ??= Promise.resolve().then(() => {
        const items = gathered;
        gathered = [];
        settling = undefined;
        return service.finishMany(items);
      }));
    };
    const lane = async (slots: number): Promise<void> => {
      let held = 0;
      let slotFreed: (() => void) | undefined;
      while (!stopped) {
        if (held >= slots) {
          await new Promise<void>((resolve) => (slotFreed = resolve));
          continue;
        }
        const reserved = await service
          .reserve({ topics: [TOPIC], count: slots - held, waitMs: RESERVE_WAIT_MS }, abort.signal)
          .catch((err: unknown) => {
            if (stopped) return [];
            throw err;
          });
        for (const r of reserved) {
          onJob(r.job.runAt);
          held++;
          const done = finish(r.job.id, r.token).finally(() => {
            held--;
            finishes.delete(done);
            slotFreed?.();
            slotFreed = undefined;
          });
          finishes.add(done);
        }
      }
    };
    const half = Math.ceil(concurrency / 2);
    const loops = lanes === 2 && concurrency > 1 ? [lane(half), lane(concurrency - half)] : [lane(concurrency)];
    return {
      stop: async () => {
        stopped = true;
        abort.abort();
        await Promise.all(loops);
        await Promise.allSettled([...finishes]);
      },
    };
  }
}

export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
  return (user + sys) * 1000;
}

export async function redisCommandCalls(redis: Redis): Promise<Map<string, { calls: number; usec: number }>> {
  const calls = new Map<string, { calls: number; usec: number }>();
  for (const match of (await redis.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+),usec=(\d+)/g)) {
    calls.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return calls;
}

export async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  const match = /used_memory:(\d+)/.exec(info);
  if (!match) throw new Error('INFO memory has no used_memory');
  return Number(match[1]);
}
