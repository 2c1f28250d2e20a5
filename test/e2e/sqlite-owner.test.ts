/**
 * One process owns an SQLite file (docs/storage.md): a second `delayq serve` on the same file is refused at
 * start with the path and the holder, and the owner's lock dies with it, so a restart after kill -9 opens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DelayqError } from '../../src/core/errors.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { bundleCli, type CliBundle } from './support/cli-bundle.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-owner-'));
const children: ChildProcess[] = [];
let cli: CliBundle;
beforeAll(async () => {
  cli = await bundleCli();
});
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  cli?.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** `delayq serve` on `file`, resolved once it listens. */
function serve(file: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cli.path, 'serve', '--port', '0', '--data', file], {
    env: { ...process.env, DELAYQ_BEANSTALKD_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`delayq did not start:\n${log}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const url = /"msg":"delayq listening".*?"url":"([^"]+)"|"url":"([^"]+)".*?"msg":"delayq listening"/.exec(log);
      if (url) {
        clearTimeout(timer);
        resolve({ child, url: (url[1] ?? url[2])! });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`delayq exited with ${code}:\n${log}`)));
  });
}

describe('one process owns an SQLite file', () => {
  it('refuses a second `delayq serve` on the file, naming it and the holder; after kill -9 of the owner a new one starts', async () => {
    const file = join(dir, 'owned.db');
    const first = await serve(file);
    const pushed = await fetch(`${first.url}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'owned', body: { n: 1 }, id: 'kept-1' }),
    });
    expect(pushed.status).toBe(201);

    const second = await cli.run(['serve', '--port', '0', '--data', file]);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('E_CONFIG');
    expect(second.stderr).toContain(file);
    expect(second.stderr).toContain(`delayq process ${first.child.pid}`);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const third = await serve(file);
    try {
      const kept = await fetch(`${third.url}/v1/jobs/kept-1`);
      expect(((await kept.json()) as { job: { state: string } }).job.state).toBe('ready');
    } finally {
      third.child.kill('SIGTERM');
      await new Promise((resolve) => third.child.once('exit', resolve));
    }
  }, 120_000);

  it('refuses a second store on the file in the same process until the first closes', async () => {
    const file = join(dir, 'in-process.db');
    const first = new SqliteStore({ path: file, nodeId: 'first' });
    await first.open();
    const second = new SqliteStore({ path: file, nodeId: 'second' });
    const refused = await second.open().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DelayqError);
    expect(refused).toMatchObject({ code: 'E_CONFIG', field: 'sqlite.path' });
    expect((refused as Error).message).toContain(`delayq process ${process.pid}`);
    expect((refused as Error).message).toContain('node first');
    await first.close();
    await second.open();
    await second.close();
  });
});
