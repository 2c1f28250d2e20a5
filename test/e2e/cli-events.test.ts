/**
 * `delayq events` as a child process against a real server: NDJSON with --json until --count, a job's
 * events as lines until the job ends, and a bad topic's refusal with the field named (docs/events.md).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqClient } from '../../src/client/client.js';
import { startServer, waitFor, type TestServer } from '../helpers/http-server.js';

const TOKEN = 'cli-events-token-0123456789';
const root = join(import.meta.dirname, '..', '..');
mkdirSync(join(root, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(root, '.tmp', 'cli-events-'));
const BUNDLE = join(dir, 'cli.mjs');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('delayq events (child process)', { timeout: 120_000 }, () => {
  let server: TestServer;
  let client: DelayqClient;
  const run = (...args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      execFile(
        process.execPath,
        [BUNDLE, '--url', server.url, '--token', TOKEN, ...args],
        { cwd: root, env: { ...process.env, DELAYQ_TOKEN: '' } },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const followers = () => (server.service.store.jobEvents as unknown as { followers: number }).followers;
  const finishOne = async (topic: string, result?: unknown) => {
    const [r] = await client.reserve({ topics: [topic], waitMs: 2000 });
    await client.finish(r!.job.id, r!.token, result === undefined ? {} : { result });
  };

  beforeAll(async () => {
    await build({
      entryPoints: [join(root, 'src/cli/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile: BUNDLE,
      logLevel: 'error',
    });
    cpSync(join(root, 'src/store/redis/lua'), join(dir, 'lua'), { recursive: true });
    cpSync(join(root, 'src/store/sqlite/migrations'), join(dir, 'migrations'), { recursive: true });
    server = await startServer({ overrides: { auth: { tokens: [{ token: TOKEN }] } } });
    client = new DelayqClient({ url: server.url, token: TOKEN });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--topic --json prints one JSON object per event and stops after --count', async () => {
    const child = run('--json', 'events', '--topic', 'cli-ev', '--count', '2');
    await waitFor(() => followers() === 1, 'the CLI follower registered', 20_000);
    await client.push({ topic: 'cli-ev', id: 'c-1', body: 1 });
    await finishOne('cli-ev', { n: 1 });
    await client.push({ topic: 'cli-ev', id: 'c-2', body: 2, delayMs: 60_000 });
    await client.cancel('c-2', 'not needed');
    const r = await child;
    expect(r, r.stderr).toMatchObject({ code: 0 });
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({ event: 'finished', id: 'c-1', topic: 'cli-ev', result: { n: 1 } }),
      expect.objectContaining({ event: 'cancelled', id: 'c-2', error: { message: 'not needed', code: null } }),
    ]);
    await waitFor(() => followers() === 0, 'the follower gone');
  });

  it("--job prints the job's events as lines and exits when it ends", async () => {
    await client.push({ topic: 'cli-ev', id: 'c-3', body: 3 });
    const child = run('events', '--job', 'c-3');
    await waitFor(() => followers() === 1, 'the CLI job follower registered', 20_000);
    await finishOne('cli-ev', 'done');
    const r = await child;
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(r.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}finished {2}cli-ev {2}c-3 {2}"done"\n$/);
  });

  it('a bad topic exits non-zero naming the field', async () => {
    const r = await run('events', '--topic', 'bad topic');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/topic/);
  });
});
