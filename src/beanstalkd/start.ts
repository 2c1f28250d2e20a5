import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { DelayqService } from '../service/service.js';
import { BeanstalkdServer, checkBeanstalkdAuth } from './server.js';

/** The listener's configuration checks, for `serve` to run before it opens or binds anything. */
export function checkBeanstalkdConfig(config: Readonly<Config>): void {
  if (!config.beanstalkd.enabled) return;
  checkBeanstalkdAuth({
    host: config.beanstalkd.host,
    authTokensConfigured: config.auth.tokens.length > 0,
    allowUnauthenticated: config.beanstalkd.allowUnauthenticated,
  });
}

/** Starts the beanstalkd listener when the configuration enables it; undefined when it does not. */
export async function startBeanstalkd(
  service: DelayqService,
  config: Readonly<Config>,
  logger: Logger,
): Promise<BeanstalkdServer | undefined> {
  if (!config.beanstalkd.enabled) return undefined;
  const server = new BeanstalkdServer(service, {
    host: config.beanstalkd.host,
    port: config.beanstalkd.port,
    maxJobSize: config.jobs.bodyMaxBytes,
    authTokensConfigured: config.auth.tokens.length > 0,
    allowUnauthenticated: config.beanstalkd.allowUnauthenticated,
    logger: logger.child({ component: 'beanstalkd' }),
  });
  const port = await server.listen();
  logger.info({ host: config.beanstalkd.host, port }, 'beanstalkd protocol listening');
  return server;
}
