import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { ping, waitFor } from './redis-servers.js';

/** redis-server processes of the journal tests: loopback ports 7100–7149, data under this directory. */
export const JOURNAL_REDIS_ROOT = '/tmp/delayq-journal-test';

export interface JournalRedis {
  port: number;
  url: string;
  /** FLUSHALL on this server only (never on the shared 6379). */
  flushAll(): Promise<void>;
  /** Stops the server and starts it again on the same port, persistence off: it comes back empty. */
  restart(): Promise<void>;
  usedMemory(): Promise<number>;
  stop(): Promise<void>;
}

/** Whether nothing listens on 127.0.0.1:port right now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port of the range, tried from a random start: this branch's tests also run in other worktrees
 * that merged it, at the same time, so a fixed port would let one run FLUSHALL another's server.
 */
export async function freeJournalPort(): Promise<number> {
  // 7100–7109 stay out of the draw: earlier copies of these tests used fixed ports there.
  const start = Math.floor(Math.random() * 40);
  for (let i = 0; i < 40; i++) {
    const port = 7110 + ((start + i) % 40);
    if (await portFree(port)) return port;
  }
  throw new Error('no free port in 7100–7149 for a journal test redis-server');
}

export async function startJournalRedis(requestedPort?: number): Promise<JournalRedis> {
  const port = requestedPort ?? (await freeJournalPort());
  if (port < 7100 || port > 7149) throw new Error(`journal tests use ports 7100–7149, not ${port}`);
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error(
      'redis-server is not installed: the journal wipe tests need their own Redis (apt-get install redis-server)',
    );
  }
  const dir = join(JOURNAL_REDIS_ROOT, String(port));
  let child: ReturnType<typeof spawn> | undefined;
  const start = async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const pid = child.pid;
    // The server that answers must be the one we just started (not a leftover still shutting down).
    await waitFor(`redis-server (pid ${pid}) on 127.0.0.1:${port}`, async () => {
      if (!(await ping(port))) return false;
      return admin(async (r) => Number(/process_id:(\d+)/.exec(await r.info('server'))![1]) === pid);
    });
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()));
    spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { timeout: 3000, stdio: 'ignore' });
    const killer = setTimeout(() => c.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(killer);
  };
  const admin = async <T>(run: (r: Redis) => Promise<T>): Promise<T> => {
    const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 1 });
    await r.connect();
    try {
      return await run(r);
    } finally {
      r.disconnect();
    }
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    flushAll: () => admin((r) => r.flushall()).then(() => undefined),
    async restart() {
      await stop();
      await start();
    },
    usedMemory: () => admin(async (r) => Number(/used_memory:(\d+)/.exec(await r.info('memory'))![1])),
    stop,
  };
}
