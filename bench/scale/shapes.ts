// The shapes the scale run loads, each started fresh: delayq's built server in its own process (as `delayq
// serve` runs it, bench/http-server.mjs) on the embedded store, on a Redis of its own, on Redis with a
// PostgreSQL or a MariaDB journal (a schema / database of its own), or on a Redis Cluster of 3 masters started
// for it (topics spread over the shards by delayq's partitions). Each gives what the checkpoints read: the
// server's pid, the Redis nodes, the SQLite file, and how to restart the server or restore its journal.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { SERVER_SCRIPT } from '../build-server.js';
import { sleep } from '../lib.js';
import { freePort, onCleanup, startProcess, startRedis, tempDir, type Server } from '../servers.js';
import { NodeHttpClient } from '../subjects/plain-http.js';
import { dropSqlDatabase, MARIADB, newSqlDatabase, POSTGRES, type SqlTarget } from '../subjects/sql-databases.js';
import type { ShapeKey } from './options.js';

export interface RedisNode {
  port: number;
  pid: number;
  admin: Redis;
}

export const SHAPE_NAMES: Record<ShapeKey, string> = {
  embedded: 'embedded (SQLite)',
  redis: 'Redis',
  postgres: 'Redis + PostgreSQL journal',
  mariadb: 'Redis + MariaDB journal',
  cluster: 'Redis Cluster, 3 masters',
};

const READY_TIMEOUT_MS = 600_000;

export class ScaleShape {
  readonly key: ShapeKey;
  readonly name: string;
  readonly nodes: readonly RedisNode[];
  readonly sqlitePath: string | undefined;
  readonly http: NodeHttpClient;
  readonly port: number;
  private server: Server;
  private readonly config: string;
  private readonly closers: (() => Promise<void>)[];

  private constructor(
    key: ShapeKey,
    parts: { nodes: RedisNode[]; sqlitePath?: string; config: string; port: number; server: Server },
    closers: (() => Promise<void>)[],
  ) {
    this.key = key;
    this.name = SHAPE_NAMES[key];
    this.nodes = parts.nodes;
    this.sqlitePath = parts.sqlitePath;
    this.config = parts.config;
    this.port = parts.port;
    this.server = parts.server;
    this.http = new NodeHttpClient(parts.port);
    this.closers = closers;
  }

  static async start(key: ShapeKey): Promise<ScaleShape> {
    const closers: (() => Promise<void>)[] = [];
    const nodes: RedisNode[] = [];
    const node = async (extraArgs: string[] = []): Promise<RedisNode> => {
      const server = await startRedis(extraArgs);
      const admin = new Redis({ host: '127.0.0.1', port: server.port });
      closers.push(async () => {
        admin.disconnect();
        await server.stop();
      });
      return { port: server.port, pid: server.pid, admin };
    };
    let overrides: Record<string, unknown>;
    let sqlitePath: string | undefined;
    if (key === 'embedded') {
      sqlitePath = join(tempDir('scale-sqlite'), 'delayq.db');
      overrides = { store: { kind: 'sqlite' }, sqlite: { path: sqlitePath } };
    } else if (key === 'cluster') {
      for (let i = 0; i < 3; i++)
        nodes.push(await node(['--cluster-enabled', 'yes', '--cluster-node-timeout', '5000']));
      await createCluster(nodes);
      const url = `redis-cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`;
      overrides = { store: { kind: 'redis' }, redis: { url } };
    } else {
      nodes.push(await node());
      overrides = { store: { kind: 'redis' }, redis: { url: `redis://127.0.0.1:${nodes[0]!.port}` } };
      if (key === 'postgres' || key === 'mariadb') {
        const sql: SqlTarget = key === 'postgres' ? POSTGRES : MARIADB;
        const name = await newSqlDatabase(sql);
        onCleanup(() => dropSqlDatabase(sql, name));
        closers.push(() => dropSqlDatabase(sql, name));
        overrides['journal'] =
          sql.dialect === 'postgres'
            ? { kind: 'postgres', url: sql.url, schema: name }
            : { kind: 'mysql', url: `${sql.url}/${name}` };
      }
    }
    const config = JSON.stringify(overrides);
    const port = await freePort();
    const { server } = await startServer(key, port, config);
    return new ScaleShape(key, { nodes, ...(sqlitePath ? { sqlitePath } : {}), config, port, server }, closers);
  }

  get serverPid(): number {
    return this.server.pid;
  }

  /** SQLite file and WAL, bytes (embedded). */
  sqliteBytes(): number | undefined {
    if (!this.sqlitePath) return undefined;
    let bytes = 0;
    for (const suffix of ['', '-wal']) {
      try {
        bytes += statSync(this.sqlitePath + suffix).size;
      } catch {
        /* no WAL at this moment */
      }
    }
    return bytes;
  }

  /** Stops the server and starts it again on the same data: ms from the start until `/ready` answers 200. */
  async restart(): Promise<number> {
    await this.server.stop();
    const { server, ms } = await startServer(this.key, this.port, this.config);
    this.server = server;
    return ms;
  }

  /**
   * Empties the journal shape's Redis and waits until the server has restored it from its journal (it does on
   * its own: `restoreMode: auto`); the restore's own duration and the jobs it brought back.
   */
  async restoreAfterWipe(): Promise<{ ms: number; restored: number; scanned: number }> {
    const before = Date.now();
    await this.nodes[0]!.admin.flushall(); // this shape's own Redis
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      await sleep(200);
      const status = (await this.http.get('/v1/journal')) as {
        inner: string;
        lastRestore: { startedAt: number; durationMs: number; restored: number; scanned: number } | null;
      };
      const last = status.lastRestore;
      if (status.inner === 'ok' && last && last.startedAt >= before)
        return { ms: last.durationMs, restored: last.restored, scanned: last.scanned };
    }
    throw new Error(`no restore within ${READY_TIMEOUT_MS / 1000} s of the wipe`);
  }

  async close(): Promise<void> {
    this.http.close();
    await this.server.stop();
    for (const close of this.closers.reverse()) await close().catch(() => undefined);
  }
}

/** Starts the server and waits for `/ready` to answer 200. */
async function startServer(key: ShapeKey, port: number, config: string): Promise<{ server: Server; ms: number }> {
  const started = performance.now();
  const server = await startProcess(
    `delayq server (${SHAPE_NAMES[key]})`,
    process.execPath,
    [SERVER_SCRIPT, String(port), config],
    port,
    READY_TIMEOUT_MS,
  );
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => undefined);
    await res?.text();
    if (res?.status === 200) break;
    if (Date.now() > deadline) throw new Error(`${SHAPE_NAMES[key]}: /ready did not answer 200 in time`);
    await sleep(20);
  }
  return { server, ms: performance.now() - started };
}

/** `redis-cli --cluster create` over the three nodes (no replicas), then waits until every node says ok. */
async function createCluster(nodes: readonly RedisNode[]): Promise<void> {
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes'],
    { encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const states = await Promise.all(nodes.map((n) => n.admin.cluster('INFO') as Promise<string>));
    if (states.every((s) => s.includes('cluster_state:ok'))) return;
    await sleep(100);
  }
  throw new Error('the Cluster did not reach cluster_state:ok within 30 s');
}
