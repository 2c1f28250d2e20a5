/**
 * The Python client (clients/python) against a real delayq: its README example as written (after
 * `pip install ./clients/python` into a fresh virtual environment), and the full consumer lifecycle on the
 * embedded store and on Redis.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { readmeBlock, REPO_ROOT, runProcess } from './run-process.js';

const PYTHON = 'python3';
const prefixes = prefixPool('pyclient');

afterAll(async () => {
  await prefixes.sweep();
});

/** Whether the server has the batch-ack route (CONTRACTS item 3): the worker uses it when it is there. */
async function hasAckRoute(server: TestServer): Promise<boolean> {
  const answer = await server.app.inject({ method: 'POST', url: '/v1/ack', payload: { acks: [] } });
  return answer.statusCode !== 404;
}

// The third column: whether the store keeps groups (the lifecycle checks them, or that they are refused).
describe.each([
  ['embedded store', () => ({}), '1'],
  ['Redis', () => ({ store: { kind: 'redis' }, redis: { prefix: prefixes.next() } }), '1'],
])('Python client, %s', (_name, overrides, groups) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('runs the full lifecycle: push, reserve, auto-touch, acks, fail → retry → dead, cancel', async () => {
    server = await startServer({ overrides: overrides() });
    const result = await runProcess(PYTHON, ['test/clients/python/lifecycle.py'], {
      env: {
        DELAYQ_URL: server.url,
        DELAYQ_PREFIX: `py${Math.random().toString(36).slice(2, 8)}`,
        PYTHONPATH: join(REPO_ROOT, 'clients/python'),
        DELAYQ_GROUPS: groups,
      },
      timeoutMs: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const batch = await hasAckRoute(server);
    expect(result.stdout.trim().split('\n')).toEqual([
      'ok validation',
      'ok cancel',
      'ok run now',
      'ok spread',
      'ok settings',
      'ok groups',
      'ok manual',
      'ok auto-touch',
      'ok fail-retry-dead',
      `ok acks batch=${batch}`,
      ...(batch ? ['ok ack-call'] : []),
      'done',
    ]);
  }, 90_000);
});

describe('Python client README', () => {
  const venv = mkdtempSync(join(tmpdir(), 'delayq-py-'));
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });
  afterAll(async () => {
    rmSync(venv, { recursive: true, force: true });
    rmSync(join(REPO_ROOT, 'clients/python/build'), { recursive: true, force: true });
    rmSync(join(REPO_ROOT, 'clients/python/delayq_client.egg-info'), { recursive: true, force: true });
  });

  it('installs with `pip install ./clients/python` and runs the one-minute example as written', async () => {
    expect((await runProcess(PYTHON, ['-m', 'venv', venv])).code).toBe(0);
    const install = await runProcess(join(venv, 'bin/pip'), ['install', '-q', './clients/python'], {
      timeoutMs: 240_000,
    });
    expect(install.stderr.replace(/^\s*\[notice].*$/gm, '').trim()).toBe('');
    expect(install.code).toBe(0);

    server = await startServer();
    const example = readmeBlock('clients/python/README.md', 'python');
    // Run from a directory without the sources, so the installed package is the one imported.
    const run = await runProcess(join(venv, 'bin/python'), ['-'], {
      input: example,
      cwd: venv,
      env: { DELAYQ_URL: server.url },
      timeoutMs: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(['pushed: delayed', 'closing order A1', 'now: finished']);
  }, 300_000);
});
