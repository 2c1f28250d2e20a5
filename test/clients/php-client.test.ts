/** The PHP client (clients/php) against a real delayq: its README example as written, and the lifecycle on the embedded store and Redis. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/http-server.js';
import { prefixPool } from '../helpers/redis-prefix.js';
import { readmeBlock, runProcess } from './run-process.js';

const prefixes = prefixPool('phpclient');
afterAll(async () => {
  await prefixes.sweep();
});

// The third column: whether the store keeps groups (the lifecycle checks them, or that they are refused).
describe.each([
  ['embedded store', () => ({}), '1'],
  ['Redis', () => ({ store: { kind: 'redis' }, redis: { prefix: prefixes.next() } }), '1'],
])('PHP client, %s', (_name, overrides, groups) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('runs the lifecycle: push, reserve, touch a long handler, batch acks, fail → retry → dead, cancel', async () => {
    server = await startServer({ overrides: overrides() });
    const result = await runProcess('php', ['test/clients/php/lifecycle.php'], {
      env: {
        DELAYQ_URL: server.url,
        DELAYQ_PREFIX: `php${Math.random().toString(36).slice(2, 8)}`,
        DELAYQ_GROUPS: groups,
      },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'ok validation',
      'ok cancel',
      'ok run now',
      'ok spread',
      'ok settings',
      'ok groups',
      'ok touch',
      'ok batch',
      'ok fail-retry-dead',
      'done',
    ]);
  }, 60_000);
});

describe('PHP client README', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('runs the one-minute example as written', async () => {
    server = await startServer();
    const example = readmeBlock('clients/php/README.md', 'php');
    const run = await runProcess('php', [], { input: example, env: { DELAYQ_URL: server.url } });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'cancelled: cancelled',
      'sending to +15550100',
      'finished: 1',
      'refused: E_WRONG_STATE',
    ]);
  }, 60_000);
});
