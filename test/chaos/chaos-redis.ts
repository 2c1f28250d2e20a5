/**
 * The suite's own redis-server (loopback, ports 7500–7599): the wipe, restart and storage-down scenarios
 * FLUSHALL, stop and restart it, which must never happen to the shared Redis on 6379.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { CHAOS_ROOT, waitUntil } from './chaos-processes.js';

export class ChaosRedis {
  readonly port: number;
  readonly dir: string;
  private child: ChildProcess | undefined;

  constructor(port: number) {
    if (port < 7500 || port > 7599) throw new Error(`chaos redis port ${port} is outside 7500–7599`);
    this.port = port;
    this.dir = join(CHAOS_ROOT, `redis-${port}`);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * Starts the server: empty and without persistence by default; `persistent` keeps an append-only file
   * (fsync always) so a stop and start loses nothing, and `keepData` starts from what the last run left.
   */
  async start(options: { persistent?: boolean; keepData?: boolean } = {}): Promise<void> {
    if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
      throw new Error('redis-server is not installed: the chaos suite starts its own (apt-get install redis-server)');
    }
    spawnSync('redis-cli', ['-p', String(this.port), 'shutdown', 'nosave'], { timeout: 3000, stdio: 'ignore' }); // leftover of a crashed run
    if (!options.keepData) rmSync(this.dir, { recursive: true, force: true });
    mkdirSync(this.dir, { recursive: true });
    const persistence = options.persistent
      ? ['--appendonly', 'yes', '--appendfsync', 'always']
      : ['--appendonly', 'no'];
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', ...persistence],
      {
        stdio: 'ignore',
      },
    );
    this.child = child;
    await waitUntil(`redis-server on 127.0.0.1:${this.port}`, async () => {
      if (child.exitCode !== null) throw new Error(`redis-server on ${this.port} exited with ${child.exitCode}`);
      return (await this.command('PING')) === 'PONG';
    });
  }

  /** Kills the server (SIGKILL: everything it held is gone). */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP: the server hangs (accepts nothing, answers nothing) until `resume`. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** A clean stop (SIGTERM: an append-only file is flushed). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }

  /** One command on a short-lived connection. */
  async command(...args: string[]): Promise<unknown> {
    const redis = new Redis({
      port: this.port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 1000,
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await redis.call(args[0]!, ...args.slice(1));
    } finally {
      redis.disconnect();
    }
  }
}
