/**
 * `delayq serve` from the built CLI with the beanstalkd port configured: a jackd client's round trip against
 * the child process, the job seen over HTTP, a clean SIGTERM; and the documented auth rule (docs/beanstalkd.md,
 * Authentication): with tokens configured a non-loopback listener stops the start with E_CONFIG naming
 * beanstalkd.host, unless beanstalkd.allowUnauthenticated.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import JackdModule from 'jackd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const Jackd = JackdModule as unknown as new () => import('jackd').JackdClient;
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'delayq-bs-serve-'));
const TOKENS = 'admin-secret-0123456789';
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Served {
  child: ChildProcess;
  http: string;
  beanstalkdPort: number;
  exited: Promise<number | null>;
}

/** Starts the built CLI's serve; resolves once HTTP and the beanstalkd listener both logged, rejects when it exits first. */
function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, ['dist/cli/main.js', 'serve', '--port', '0', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise<Served>((resolve, reject) => {
    let http: string | undefined;
    let beanstalkdPort: number | undefined;
    const read = (chunk: Buffer): void => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string; port?: number };
        if (entry.msg === 'delayq listening') http = entry.url;
        if (entry.msg === 'beanstalkd protocol listening') beanstalkdPort = entry.port;
      }
      if (http && beanstalkdPort) resolve({ child, http, beanstalkdPort, exited });
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => reject(Object.assign(new Error(`delayq exited with ${code}`), { code, output })));
  });
}

beforeAll(async () => {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: root });
}, 180_000);

describe('delayq serve with the beanstalkd port configured', () => {
  it('serves a jackd client beside HTTP, and stops cleanly on SIGTERM', async () => {
    const server = await serve(['--data', join(dir, 'a.db'), '--beanstalkd-port', '0']);
    const client = new Jackd();
    await client.connect({ host: '127.0.0.1', port: server.beanstalkdPort });
    await client.use('serve-e2e');
    await client.watch('serve-e2e');
    const number = await client.put('hello from jackd', { priority: 10 });
    const job = await client.reserve();
    expect(job.id).toBe(number);
    expect(Buffer.from(job.payload).toString()).toBe('hello from jackd');
    await client.delete(number);
    const stats = (await (await fetch(`${server.http}/v1/stats`)).json()) as {
      topics: { topic: string; counts: { finished: number } }[];
    };
    expect(stats.topics.find((t) => t.topic === 'serve-e2e')?.counts.finished).toBe(1);
    await client.quit();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('with auth tokens, refuses a non-loopback listener (E_CONFIG, beanstalkd.host) unless allowed', async () => {
    const refused = await serve(
      ['--data', join(dir, 'b.db'), '--beanstalkd-port', '0', '--beanstalkd-host', '0.0.0.0'],
      {
        DELAYQ_AUTH_TOKENS: TOKENS,
      },
    ).catch((err: { code: number; output: string }) => err);
    expect(refused).toMatchObject({ code: expect.any(Number) });
    expect((refused as { code: number }).code).not.toBe(0);
    expect((refused as { output: string }).output).toMatch(
      /E_CONFIG[\s\S]*beanstalkd\.host|beanstalkd\.host[\s\S]*E_CONFIG/,
    );

    // Loopback needs no permission; a wider address needs beanstalkd.allowUnauthenticated.
    for (const [host, env] of [
      ['127.0.0.1', {}],
      ['0.0.0.0', { DELAYQ_BEANSTALKD_ALLOW_UNAUTHENTICATED: 'true' }],
    ] as const) {
      const server = await serve(
        ['--data', join(dir, `c-${host}.db`), '--beanstalkd-port', '0', '--beanstalkd-host', host],
        {
          DELAYQ_AUTH_TOKENS: TOKENS,
          ...env,
        },
      );
      const client = new Jackd();
      await client.connect({ host: '127.0.0.1', port: server.beanstalkdPort });
      expect(await client.listTubeUsed()).toBe('default');
      await client.quit();
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  }, 120_000);
});
