/**
 * Optional parts load only when used: `delayq serve` on the embedded store, after serving a push, has
 * loaded no SQL journal driver, no broker client and no gRPC library (each is imported when its journal or sink is used).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'delayq-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const OPTIONAL = ['pg', 'mysql2', 'amqplib', 'mqtt', '@grpc/grpc-js', '@grpc/proto-loader'];

it('a plain embedded start loads no journal driver and no broker client', async () => {
  const loadedFile = join(dir, 'loaded.json');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      './test/e2e/support/report-loaded-modules.mjs',
      'src/cli/main.ts',
      'serve',
      '--port',
      '0',
      '--data',
      join(dir, 'data'),
    ],
    { cwd: root, env: { ...process.env, DELAYQ_LOADED_FILE: loadedFile }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`delayq did not start:\n${out}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /"url":"([^"]+)"[^\n]*delayq listening|delayq listening[^\n]*"url":"([^"]+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve((match[1] ?? match[2])!);
      }
    });
  });
  const res = await fetch(`${url}/v1/jobs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"topic":"t","body":1}',
  });
  expect(res.status).toBe(201);
  child.kill('SIGTERM');
  expect(await exited).toBe(0);

  const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
  // The probe sees CommonJS packages: the embedded store's better-sqlite3 must be among them.
  expect(loaded.some((path) => path.includes('/node_modules/better-sqlite3/'))).toBe(true);
  for (const pkg of OPTIONAL)
    expect(
      loaded.filter((path) => path.includes(`/node_modules/${pkg}/`)),
      pkg,
    ).toEqual([]);
});
