// Servers the benchmark starts for itself on loopback (a dedicated Redis, beanstalkd), and the cleanup that
// stops them and removes their temp dirs on every exit path: normal end, thrown error, signal, watchdog.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './lib.js';

/** The benchmark's port range (other helpers and the shared servers use other ports); BENCH_PORT_MIN/MAX move it. */
export const PORT_MIN = Number(process.env['BENCH_PORT_MIN'] ?? 7400);
export const PORT_MAX = Number(process.env['BENCH_PORT_MAX'] ?? 7499);

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
const finalizers: Array<() => Promise<void>> = [];

/** Runs on normal exit too; async finalizers (dropping SQL schemas) run only from `cleanup()`. */
export function onCleanup(fn: () => Promise<void>): void {
  finalizers.push(fn);
}

export async function cleanup(): Promise<void> {
  for (const fn of finalizers.splice(0).reverse()) await fn().catch(() => undefined);
  killAll();
}

function killAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  children.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}
// Last resort: even on process.exit() from anywhere, no server or temp dir outlives us.
process.on('exit', killAll);

/**
 * A detached shell that outlives a SIGKILL of this process: once we are gone, it kills the server and
 * removes the temp dir. (Node cannot ask the kernel for a parent-death signal.)
 */
function guardian(pid: number | undefined, dir: string | undefined): void {
  const parts = [`while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`];
  if (pid) parts.push(`kill -9 ${pid} 2>/dev/null`);
  if (dir) parts.push(`rm -rf '${dir}'`);
  spawn('sh', ['-c', parts.join('; ')], { detached: true, stdio: 'ignore' }).unref();
}

export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `delayq-bench-${label}-`));
  dirs.add(dir);
  guardian(undefined, dir);
  return dir;
}

const bindable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
/** The port handed out last: the next search starts after it. */
let lastPort = PORT_MAX;
/**
 * A free loopback port in our range (skips ports in use, e.g. by a concurrent benchmark run). The search goes
 * round the range from the port handed out last, so a port just handed out, whose server may not listen yet,
 * comes round again only after every other one (a subject that asks for three ports before starting its server
 * gets three), while the ports of servers stopped since are used again (a full run starts more than a hundred).
 */
export async function freePort(): Promise<number> {
  const size = PORT_MAX - PORT_MIN + 1;
  for (let step = 1; step <= size; step++) {
    const port = PORT_MIN + ((lastPort - PORT_MIN + step) % size);
    if (await bindable(port)) {
      lastPort = port;
      return port;
    }
  }
  throw new Error(`no free port in ${PORT_MIN}–${PORT_MAX} for a benchmark server`);
}

async function waitForPort(port: number, name: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with code ${child.exitCode} before listening on ${port}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(25);
  }
  throw new Error(`${name} did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

export interface Server {
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

/** Spawns a server process, tracked for cleanup, and waits until it listens on `port`. */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  port: number,
  startTimeoutMs?: number,
): Promise<Server> {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  child.once('error', (err) => (stderr += `\n${err.message}`));
  children.add(child);
  guardian(child.pid, undefined);
  return waitForPort(port, name, child, startTimeoutMs).then(
    () => ({
      port,
      pid: child.pid!,
      stop: async () => {
        children.delete(child);
        if (child.exitCode !== null) return;
        // The grace timer is cleared on exit: a stopped server leaves nothing running behind it.
        let grace: NodeJS.Timeout | undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => (grace = setTimeout(resolve, 3000)))]);
        clearTimeout(grace);
        if (child.exitCode === null) child.kill('SIGKILL');
      },
    }),
    (err: Error) => {
      child.kill('SIGKILL');
      throw new Error(`${err.message}${stderr ? `\n${name} said: ${stderr}` : ''} (is ${command} installed?)`);
    },
  );
}

/** A Redis of our own: no persistence, so FLUSHALL and CONFIG SET hz are safe here (never on 6379). */
export async function startRedis(extraArgs: readonly string[] = []): Promise<Server> {
  const port = await freePort();
  const dir = tempDir('redis');
  return startProcess(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extraArgs],
    port,
  );
}

/**
 * beanstalkd 1.12 from Debian: in memory (no binlog), as its defaults run it; or, with `binlog`, durable as
 * its manual describes (`-b DIR`: every put and delete appended to a binlog there, written out at once but,
 * as by default, not fsynced: the same promise as a Redis that is not fsynced on every write).
 */
export async function startBeanstalkd(options: { binlog?: boolean } = {}): Promise<Server> {
  const port = await freePort();
  const args = ['-l', '127.0.0.1', '-p', String(port)];
  if (!options.binlog) return startProcess('beanstalkd', 'beanstalkd', args, port);
  const dir = mkdtempSync(join(tmpdir(), 'delayq-bench-binlog-'));
  const server = await startProcess('beanstalkd -b', 'beanstalkd', [...args, '-b', dir], port);
  return {
    ...server,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resident set size of a process, in bytes (Linux). */
export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** User + system CPU time a process has used, ms (Linux /proc; clock ticks are 1/100 s here). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
