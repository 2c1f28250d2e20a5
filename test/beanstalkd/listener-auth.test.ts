import { describe, expect, it } from 'vitest';
import { checkBeanstalkdAuth } from '../../src/beanstalkd/server.js';
import { startBeanstalkd } from '../../src/beanstalkd/start.js';
import { loadConfig } from '../../src/config.js';
import { DelayqError } from '../../src/core/errors.js';

describe('the beanstalkd listener and auth tokens', () => {
  it('is refused on a non-loopback host when tokens are configured, unless allowed', () => {
    expect(() => checkBeanstalkdAuth({ host: '0.0.0.0', authTokensConfigured: true })).toThrow(DelayqError);
    try {
      checkBeanstalkdAuth({ host: '0.0.0.0', authTokensConfigured: true });
    } catch (err) {
      expect(err).toMatchObject({ code: 'E_CONFIG', field: 'beanstalkd.host' });
    }
    expect(() => checkBeanstalkdAuth({ host: '127.0.0.1', authTokensConfigured: true })).not.toThrow();
    expect(() =>
      checkBeanstalkdAuth({ host: '0.0.0.0', authTokensConfigured: true, allowUnauthenticated: true }),
    ).not.toThrow();
    expect(() => checkBeanstalkdAuth({ host: '0.0.0.0', authTokensConfigured: false })).not.toThrow();
  });

  it('is off by default and reads its options from DELAYQ_BEANSTALKD_*', async () => {
    const off = loadConfig({ env: {} });
    expect(off.beanstalkd).toEqual({ enabled: false, host: '127.0.0.1', port: 11300, allowUnauthenticated: false });
    expect(await startBeanstalkd({} as never, off, undefined as never)).toBeUndefined();
    const on = loadConfig({
      env: { DELAYQ_BEANSTALKD_ENABLED: 'true', DELAYQ_BEANSTALKD_PORT: '0', DELAYQ_BEANSTALKD_HOST: '::1' },
    });
    expect(on.beanstalkd).toMatchObject({ enabled: true, port: 0, host: '::1' });
  });
});
