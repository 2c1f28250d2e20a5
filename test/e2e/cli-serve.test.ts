/**
 * The README's promise, for real: `npm start` builds and serves on the embedded store, and a client
 * that only speaks HTTP (fetch, as curl would) can push, reserve and finish. Then the built CLI's own
 * client commands and a restart on the same data file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'delayq-cli-'));
const dbPath = join(dir, 'data', 'delayq.db');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

interface Started {
  child: ChildProcess;
  url: string;
  log: string[];
  /** Resolves when every process of the group has let go of stdout: the exit code, or the signal's name. */
  exited: Promise<number | string | null>;
}

/** Starts a command in its own process group and waits for the "delayq listening" log line. */
function start(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const log: string[] = [];
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? signal)),
  );
  return new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`delayq did not start:\n${log.join('\n')}`)), 90_000);
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        log.push(line);
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === 'delayq listening' && entry.url) {
          clearTimeout(timer);
          resolve({ child, url: entry.url, log, exited });
        }
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => log.push(chunk.toString()));
    void exited.then((code) => reject(new Error(`delayq exited with ${code}:\n${log.join('\n')}`)));
  });
}

async function stop(server: Started): Promise<number | string | null> {
  process.kill(-server.child.pid!, 'SIGTERM');
  return server.exited;
}

const json = async (url: string, init?: { method?: string; body?: unknown }) => {
  const response = await fetch(url, {
    method: init?.method ?? 'GET',
    ...(init?.body === undefined
      ? {}
      : { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, body: (await response.json()) as any };
};

describe('delayq serve as the README says', () => {
  let jobId = '';

  it('`npm start` builds, serves on a fresh data dir, and answers curl-like requests', async () => {
    const server = await start('npm', ['start'], { DELAYQ_HTTP_PORT: '0', DELAYQ_SQLITE_PATH: dbPath });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(await json(`${server.url}/health`)).toEqual({ status: 200, body: { status: 'ok' } });
      const pushed = await json(`${server.url}/v1/jobs`, {
        method: 'POST',
        body: { topic: 'order-close', body: { orderNo: 'A1' }, delayMs: 0 },
      });
      expect(pushed).toMatchObject({ status: 201, body: { created: true, job: { state: 'ready' } } });
      jobId = pushed.body.job.id;
      const reserved = await json(`${server.url}/v1/reserve`, {
        method: 'POST',
        body: { topics: ['order-close'], waitMs: 1000 },
      });
      expect(reserved.body.reservations[0].job).toMatchObject({ id: jobId, body: { orderNo: 'A1' } });
      const token = reserved.body.reservations[0].token as string;
      const finished = await json(`${server.url}/v1/jobs/${jobId}/finish`, { method: 'POST', body: { token } });
      expect(finished.body.job.state).toBe('finished');
      const mykit = await json(`${server.url}/push`, {
        method: 'POST',
        body: { topic: 'ces', body: '{hello world}', delay: 600_000, id: '20' },
      });
      expect(mykit.body).toMatchObject({ success: true, data: '20' });
      expect((await json(`${server.url}/openapi.json`)).body.openapi).toMatch(/^3\./);
    } finally {
      // npm itself dies of the signal; the server it started (same process group) closes gracefully.
      expect(await stop(server)).toBe('SIGTERM');
    }
    expect(server.log.some((line) => line.includes('"msg":"closed"'))).toBe(true);
    expect(server.log.join('\n')).not.toContain('hello world'); // no job bodies in logs by default
  }, 120_000);

  it('`node dist/cli/main.js serve --port 0 --data FILE` keeps the jobs of the last run; client commands talk to it', async () => {
    const server = await start(process.execPath, ['dist/cli/main.js', 'serve', '--port', '0', '--data', dbPath], {});
    try {
      expect((await json(`${server.url}/v1/jobs/${jobId}`)).body.job.state).toBe('finished');
      expect((await json(`${server.url}/v1/jobs/20`)).body.job.state).toBe('delayed');
      const cli = (...args: string[]) =>
        promisify(execFile)(process.execPath, ['dist/cli/main.js', '--url', server.url, '--json', ...args], {
          cwd: root,
        });
      const pushed = JSON.parse((await cli('push', 'cli-topic', '{"n":1}', '--id', 'cli-1')).stdout) as {
        created: boolean;
      };
      expect(pushed.created).toBe(true);
      const reserved = JSON.parse((await cli('reserve', 'cli-topic', '--wait', '1000')).stdout) as {
        reservations: { token: string }[];
      };
      const finish = JSON.parse((await cli('finish', 'cli-1', reserved.reservations[0]!.token)).stdout) as {
        job: { state: string };
      };
      expect(finish.job.state).toBe('finished');
      const stats = JSON.parse((await cli('stats')).stdout) as {
        topics: { topic: string; counts: { finished: number } }[];
      };
      expect(stats.topics.find((t) => t.topic === 'cli-topic')?.counts.finished).toBe(1);
      const failure = await cli('get', 'no-such-job').catch((e: { code: number; stderr: string }) => e);
      expect(failure).toMatchObject({ code: 4 }); // docs/cli.md: 4 = not found
      expect((failure as { stderr: string }).stderr).toContain('E_NOT_FOUND');

      // SIGTERM while a consumer long-polls: it gets an empty answer, not a cut connection.
      const waiting = json(`${server.url}/v1/reserve`, { method: 'POST', body: { topics: ['quiet'], waitMs: 30_000 } });
      const deadline = Date.now() + 10_000;
      while ((await json(`${server.url}/ready`)).body.waitingConsumers === 0) {
        if (Date.now() > deadline) throw new Error('the long-poll never reached the server');
      }
      const startedAt = Date.now();
      const exit = stop(server);
      expect(await waiting).toEqual({ status: 200, body: { reservations: [] } });
      expect(Date.now() - startedAt).toBeLessThan(10_000);
      expect(await exit).toBe(0);
    } finally {
      if (server.child.exitCode === null) await stop(server);
    }
  }, 60_000);
});
