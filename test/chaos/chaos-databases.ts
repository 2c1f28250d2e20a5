/**
 * The failover suite's own journal databases: a PostgreSQL and a MariaDB server on loopback ports of the
 * suite (7600–7699), data under /tmp, so a test can kill -9 one and start it again; the shared servers on
 * 5432 and 3306 must never be killed. A data directory is initialised once and kept between runs.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { waitUntil } from './chaos-processes.js';

const ROOT = '/tmp/delayq-failover-db';

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function findPostgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => join(base, v, 'bin')).find((dir) => existsSync(join(dir, 'postgres')));
  if (!found) throw new Error(`no PostgreSQL server binaries under ${base}: the journal-kill faults need them`);
  return found;
}

function hasBinary(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/** A database server child process: start, kill -9, start again on the same data. */
export abstract class OwnDatabase {
  readonly port: number;
  readonly dir: string;
  protected child: ChildProcess | undefined;
  protected stderr = '';

  constructor(port: number, name: string) {
    if (port < 7600 || port > 7699) throw new Error(`database port ${port} is outside 7600–7699`);
    this.port = port;
    this.dir = join(ROOT, `${name}-${port}`);
  }

  abstract readonly dialect: 'postgres' | 'mysql';
  /** The connection string of a database (PostgreSQL: the `test` database, `schema` is the journal's schema). */
  abstract url(database?: string): string;
  protected abstract initialise(): void;
  protected abstract command(): { file: string; args: string[]; uid?: number; gid?: number };
  /** Answers a trivial query. */
  abstract ping(): Promise<boolean>;
  /** Creates the journal's schema (PostgreSQL) or database (MariaDB). */
  abstract createJournalPlace(name: string): Promise<void>;

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(timeoutMs = 90_000): Promise<void> {
    if (!existsSync(join(this.dir, 'ready'))) {
      rmSync(this.dir, { recursive: true, force: true });
      mkdirSync(this.dir, { recursive: true });
      this.initialise();
      spawnSync('touch', [join(this.dir, 'ready')]);
    }
    const { file, args, uid, gid } = this.command();
    // no wrapper process (runuser): the SIGKILL must reach the server itself
    const child = spawn(file, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(uid === undefined ? {} : { uid, gid }),
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-3000)));
    running.add(child);
    child.once('exit', () => running.delete(child));
    this.child = child;
    await waitUntil(
      `${this.dialect} on 127.0.0.1:${this.port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.dialect} exited: ${this.stderr}`);
        return this.ping();
      },
      timeoutMs,
      200,
    );
  }

  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
}

/** PostgreSQL run as the `postgres` user (it refuses root), trust authentication on loopback. */
export class OwnPostgres extends OwnDatabase {
  readonly dialect = 'postgres' as const;
  private readonly bin = findPostgresBin();

  constructor(port: number) {
    super(port, 'pg');
  }

  url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  protected initialise(): void {
    chownSync(this.dir, uidOf('postgres'), gidOf('postgres'));
    const init = spawnSync(join(this.bin, 'initdb'), ['-D', join(this.dir, 'data'), '-A', 'trust', '-U', 'postgres'], {
      encoding: 'utf8',
      timeout: 120_000,
      uid: uidOf('postgres'),
      gid: gidOf('postgres'),
    });
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stdout}${init.stderr}`);
  }

  protected command(): { file: string; args: string[]; uid: number; gid: number } {
    return {
      file: join(this.bin, 'postgres'),
      uid: uidOf('postgres'),
      gid: gidOf('postgres'),
      args: [
        '-D',
        join(this.dir, 'data'),
        '-p',
        String(this.port),
        '-h',
        '127.0.0.1',
        '-k',
        this.dir,
        '-c',
        'fsync=on',
        '-c',
        'shared_buffers=16MB',
        '-c',
        'max_connections=60',
      ],
    };
  }

  async ping(): Promise<boolean> {
    const client = new pg.Client({ connectionString: this.url(), connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async createJournalPlace(name: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA ${name}`);
    } finally {
      await client.end();
    }
  }
}

/** MariaDB run as root with its own data directory and socket; root has no password on loopback. */
export class OwnMariadb extends OwnDatabase {
  readonly dialect = 'mysql' as const;

  constructor(port: number) {
    super(port, 'mariadb');
    if (!hasBinary('mariadbd') || !hasBinary('mariadb-install-db'))
      throw new Error('mariadbd and mariadb-install-db are needed for the MariaDB journal-kill faults');
  }

  url(database = ''): string {
    return `mysql://root@127.0.0.1:${this.port}/${database}`;
  }

  protected initialise(): void {
    const init = spawnSync(
      'mariadb-install-db',
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        '--user=root',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ],
      { encoding: 'utf8', timeout: 180_000 },
    );
    if (init.status !== 0) throw new Error(`mariadb-install-db failed: ${init.stdout}${init.stderr}`);
  }

  protected command(): { file: string; args: string[] } {
    return {
      file: 'mariadbd',
      args: [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        '--user=root',
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'mysqld.sock')}`,
        `--pid-file=${join(this.dir, 'mysqld.pid')}`,
        '--innodb-buffer-pool-size=32M',
        '--innodb-log-file-size=16M',
        '--innodb-flush-log-at-trx-commit=1',
        '--skip-name-resolve',
        '--max-connections=100',
      ],
    };
  }

  async ping(): Promise<boolean> {
    const conn = await createConnection({ uri: this.url(), connectTimeout: 1000 });
    try {
      await conn.query('SELECT 1');
      return true;
    } finally {
      await conn.end().catch(() => undefined);
    }
  }

  async createJournalPlace(name: string): Promise<void> {
    const conn = await createConnection({ uri: this.url() });
    try {
      await conn.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
    } finally {
      await conn.end();
    }
  }
}

function uidOf(user: string): number {
  return Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
}

function gidOf(user: string): number {
  return Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
}
