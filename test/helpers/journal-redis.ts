import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
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

export async function startJournalRedis(port: number): Promise<JournalRedis> {
  if (port < 7100 || port > 7149) throw new Error(`journal tests use ports 7100–7149, not ${port}`);
  if (spawnSync('sh', ['-c', 'command -v redis-server']).status !== 0) {
    throw new Error('redis-server is not installed: the journal wipe tests need their own Redis (apt-get install redis-server)');
  }
  const dir = join(JOURNAL_REDIS_ROOT, String(port));
  let child: ReturnType<typeof spawn> | undefined;
  const start = async () => {
    spawnSync('redis-cli', ['-p', String(port), 'shutdown', 'nosave'], { timeout: 3000, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitFor(`redis-server on 127.0.0.1:${port}`, () => ping(port));
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
