import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configOptions, envName, loadConfig } from '../src/config.js';
import { createService } from '../src/create-service.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadConfig', () => {
  it('has a default for every option, and freezes the result', () => {
    const config = loadConfig({ env: {} });
    expect(config.http).toEqual({
      host: '127.0.0.1',
      port: 7750,
      bodyLimitBytes: 4 * 1024 * 1024,
      allowedOrigins: [],
      allowedHosts: [],
    });
    expect(config.store.kind).toBe('sqlite');
    expect(config.sqlite).toEqual({ path: './data/delayq.db', synchronous: 'NORMAL', cacheMb: 256 });
    expect(config.jobs.ttrMs).toBe(30_000);
    expect(config.auth.tokens).toEqual([]);
    expect(config.log).toEqual({ level: 'info', bodies: false });
    expect(Object.isFrozen(config) && Object.isFrozen(config.http)).toBe(true);
    expect(() => ((config.http as { port: number }).port = 1)).toThrow();
  });

  it('derives one DELAYQ_* variable per option (the README table lists them)', () => {
    const names = configOptions().map((o) => o.env);
    expect(names).toEqual(
      expect.arrayContaining([
        'DELAYQ_HTTP_PORT',
        'DELAYQ_SQLITE_PATH',
        'DELAYQ_REDIS_URL',
        'DELAYQ_JOBS_TTR_MS',
        'DELAYQ_JOBS_RETRY_BACKOFF',
        'DELAYQ_AUTH_TOKENS',
        'DELAYQ_LOG_BODIES',
      ]),
    );
    expect(envName(['scheduler', 'safetyWakeMs'])).toBe('DELAYQ_SCHEDULER_SAFETY_WAKE_MS');
  });

  it('layers file < env < overrides', () => {
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ http: { port: 1111, host: '0.0.0.0' }, jobs: { ttrMs: 5000 } }));
    const config = loadConfig({
      file,
      env: { DELAYQ_HTTP_PORT: '2222', DELAYQ_LOG_BODIES: 'true' },
      overrides: { http: { port: 3333 } },
    });
    expect(config.http).toMatchObject({ port: 3333, host: '0.0.0.0' });
    expect(config.jobs.ttrMs).toBe(5000);
    expect(config.log.bodies).toBe(true);
  });

  it('reads tokens from the environment as a list or as JSON', () => {
    const list = loadConfig({ env: { DELAYQ_AUTH_TOKENS: 'aaaaaaaaaaaaaaaa1,bbbbbbbbbbbbbbbb2=orders.|billing.' } });
    expect(list.auth.tokens).toEqual([
      { token: 'aaaaaaaaaaaaaaaa1' },
      { token: 'bbbbbbbbbbbbbbbb2', topics: ['orders.', 'billing.'] },
    ]);
    const json = loadConfig({ env: { DELAYQ_AUTH_TOKENS: '[{"token":"cccccccccccccccc3"}]' } });
    expect(json.auth.tokens).toEqual([{ token: 'cccccccccccccccc3' }]);
  });

  it('accepts a retry schedule text and turns it into the job defaults', async () => {
    const config = loadConfig({
      env: { DELAYQ_JOBS_RETRY_BACKOFF: '4m,10m,1h', DELAYQ_JOBS_RETRY_MAX_ATTEMPTS: '4' },
      overrides: { sqlite: { path: ':memory:' } },
    });
    const service = createService(config);
    expect(service.defaults.retry).toEqual({
      maxAttempts: 4,
      backoff: { type: 'list', delaysMs: [240_000, 600_000, 3_600_000] },
    });
  });

  it('fails with E_CONFIG naming the option and its variable', () => {
    const attempt = (options: Parameters<typeof loadConfig>[0]) => {
      try {
        loadConfig(options);
      } catch (err) {
        return err as { code: string; field: string; message: string };
      }
      throw new Error('expected a failure');
    };
    expect(attempt({ env: { DELAYQ_HTTP_PORT: 'eighty' } })).toMatchObject({ code: 'E_CONFIG', field: 'http.port' });
    expect(attempt({ env: { DELAYQ_HTTP_PORT: '70000' } }).message).toContain('DELAYQ_HTTP_PORT');
    expect(attempt({ env: { DELAYQ_STORE_KIND: 'mongo' } })).toMatchObject({ field: 'store.kind' });
    expect(attempt({ overrides: { http: { prot: 1 } } })).toMatchObject({ field: 'http.prot' });
    expect(attempt({ env: { DELAYQ_AUTH_TOKENS: 'short' } })).toMatchObject({ field: 'auth.tokens[0].token' });
    expect(attempt({ env: { DELAYQ_JOBS_RETRY_BACKOFF: 'sometimes' } })).toMatchObject({ field: 'jobs.retry.backoff' });
    expect(attempt({ file: join(dir, 'missing.json') })).toMatchObject({ code: 'E_CONFIG', field: 'file' });
  });

  it('creates the SQLite directory for the configured path', async () => {
    const path = join(dir, 'nested', 'deeper', 'delayq.db');
    const service = createService(loadConfig({ env: { DELAYQ_SQLITE_PATH: path } }));
    await service.start();
    expect((await service.push({ topic: 't' })).created).toBe(true);
    await service.close();
  });
});
