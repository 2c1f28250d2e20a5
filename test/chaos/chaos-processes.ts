/**
 * Process management for the chaos suite: delayq servers, producers and consumers as child processes
 * (so a SIGKILL is a real crash), each child's JSON-lines output collected as history events.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { chaosBuildDir } from './chaos-build.js';
import type { ChaosServerSpec } from './chaos-server.js';
import type { BeanstalkdClientSpec } from './chaos-beanstalkd.js';
import type { ConsumerSpec } from './chaos-consumer.js';
import type { ProducerSpec } from './chaos-producer.js';

/** Every file the suite writes lives here. */
export const CHAOS_ROOT = '/tmp/delayq-chaos-test';
mkdirSync(CHAOS_ROOT, { recursive: true });

/** Long form: `npm run test:chaos` sets CHAOS_LONG=1. */
export const LONG = process.env['CHAOS_LONG'] === '1';

const entry = (name: string): string => join(chaosBuildDir(), 'test', 'chaos', `${name}.js`);
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Every child still running; killed when the test process exits (a timed-out test skips its cleanup). */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A child node process running one of the suite's entry points, its stdout lines parsed as JSON. */
export class ChaosChild {
  readonly process: ChildProcess;
  readonly lines: string[] = [];
  readonly events: Record<string, any>[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(name: string, arg: object, env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []) {
    this.process = spawn(process.execPath, [...nodeArgs, entry(name), JSON.stringify(arg)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    running.add(this.process);
    this.exited = new Promise((resolve) =>
      this.process.once('exit', (code, signal) => {
        running.delete(this.process);
        resolve({ code, signal });
      }),
    );
    createInterface({ input: this.process.stdout! }).on('line', (line) => {
      this.lines.push(line);
      if (line.startsWith('{')) this.events.push(JSON.parse(line) as Record<string, any>);
    });
    this.process.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
  }

  get pid(): number {
    return this.process.pid!;
  }

  get alive(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  kill9(): Promise<unknown> {
    if (this.alive) this.process.kill('SIGKILL');
    return this.exited;
  }

  /** SIGTERM, and SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.alive) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  /** Live heap after a full GC (server children only: SIGUSR2 hook of chaos-server.ts). */
  async heapAfterGc(): Promise<{ heapUsed: number; rss: number }> {
    const before = this.events.length;
    // Asked again each second: signals of one kind coalesce, and one sent while the child is busy may be the
    // only one it sees (a CI run timed out after 10 s on the first ask).
    let askedAt = 0;
    await waitUntil(
      'heap report',
      () => {
        if (this.events.slice(before).some((e) => e['type'] === 'heap')) return true;
        if (Date.now() - askedAt >= 1000) {
          askedAt = Date.now();
          this.process.kill('SIGUSR2');
        }
        return false;
      },
      20_000,
      20,
    );
    const report = this.events.slice(before).find((e) => e['type'] === 'heap')!;
    return { heapUsed: report['heapUsed'] as number, rss: report['rss'] as number };
  }

  /** Resident set size from /proc, bytes. */
  rssBytes(): number {
    return rssOf(this.pid);
  }
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** A delayq server child: start, SIGKILL, start again on the same port. */
export class ServerProcess {
  readonly spec: ChaosServerSpec;
  readonly url: string;
  child: ChaosChild | undefined;
  readonly env: NodeJS.ProcessEnv;

  constructor(spec: ChaosServerSpec, env: NodeJS.ProcessEnv = {}) {
    this.spec = spec;
    this.url = `http://127.0.0.1:${spec.port}`;
    this.env = env;
  }

  async start(timeoutMs = 30_000): Promise<void> {
    const child = new ChaosChild('chaos-server', this.spec, this.env, ['--expose-gc']);
    this.child = child;
    await waitUntil(
      `delayq server ${this.spec.nodeId} on ${this.url}`,
      () => {
        if (!child.alive) throw new Error(`delayq server ${this.spec.nodeId} exited: ${child.stderr}`);
        return child.lines.some((l) => l.startsWith('READY'));
      },
      timeoutMs,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\n${child.stderr}`);
    });
  }

  async kill9(): Promise<void> {
    await this.child?.kill9();
  }

  async stop(): Promise<void> {
    await this.child?.stop();
  }
}

export function startProducer(spec: ProducerSpec): ChaosChild {
  return new ChaosChild('chaos-producer', spec);
}

export function startConsumer(spec: ConsumerSpec): ChaosChild {
  return new ChaosChild('chaos-consumer', spec);
}

export function startBeanstalkdClient(spec: BeanstalkdClientSpec): ChaosChild {
  return new ChaosChild('chaos-beanstalkd', spec);
}
