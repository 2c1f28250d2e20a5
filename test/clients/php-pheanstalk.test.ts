/** clients/php/README.md's pheanstalk example, as written, against delayq's beanstalkd listener (embedded store and Redis). */
import { afterEach, describe, expect, it } from 'vitest';
import { startTarget, type Target } from '../beanstalkd/targets.js';
import { readmeBlock, runProcess } from './run-process.js';

describe.each(['sqlite', 'redis'] as const)('pheanstalk example of the PHP README, %s', (store) => {
  let target: Target | undefined;
  afterEach(async () => {
    await target?.close();
  });

  it('runs as written', async () => {
    target = await startTarget(store);
    const example = readmeBlock('clients/php/README.md', 'php', 1);
    const run = await runProcess('php', [], {
      input: example,
      env: { DELAYQ_URL: target.http!.url, DELAYQ_BEANSTALKD_PORT: String(target.port) },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      'reserved: hello from pheanstalk',
      'reserved: {"to":"ada@example.com"}',
      'over HTTP: finished',
    ]);
  }, 60_000);
});
