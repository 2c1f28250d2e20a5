import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

const leaked: Array<() => void> = [];
afterAll(() => leaked.forEach((close) => close()));

/** The setup file's afterEach turns this into a failure: it leaves a server listening. */
it.fails('fails a test that leaves a server listening', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  leaked.push(() => server.close());
});

it('passes a test that closed what it started', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => server.close(() => resolve()));
  clearTimeout(setTimeout(() => undefined, 60_000));
  expect(server.listening).toBe(false);
});

it('fails a file whose test left a timer running, naming the test', async () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const out = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/house/fixtures/vitest.fixture.config.ts'],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
      (_err, stdout, stderr) => resolve(stdout + stderr),
    );
  });
  expect(out).toContain('timer ×1 made in "leaves a timer running"');
});
