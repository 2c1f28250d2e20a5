/**
 * `delayq serve`: load the configuration, open the store, start the timer and serve the HTTP API.
 * SIGTERM/SIGINT close gracefully: stop accepting connections, answer pending long-polls (empty), let
 * in-flight calls settle, close the store.
 */
import { pino } from 'pino';
import { loadConfig } from '../../config.js';
import { createRuntime } from '../../runtime.js';
import { buildApp, closeGracefully } from '../../server/app.js';
import { checkBeanstalkdConfig, startBeanstalkd } from '../../beanstalkd/start.js';

export interface ServeFlags {
  config?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  data?: string | undefined;
  store?: string | undefined;
  redisUrl?: string | undefined;
  logLevel?: string | undefined;
  beanstalkdPort?: number | undefined;
  beanstalkdHost?: string | undefined;
}

/** Flags → the partial config they override (only flags actually given). */
export function flagOverrides(flags: ServeFlags): Record<string, unknown> {
  const overrides: Record<string, Record<string, unknown>> = {};
  const set = (section: string, key: string, value: unknown): void => {
    if (value !== undefined) (overrides[section] ??= {})[key] = value;
  };
  set('http', 'host', flags.host);
  set('http', 'port', flags.port);
  set('sqlite', 'path', flags.data);
  set('store', 'kind', flags.store);
  set('redis', 'url', flags.redisUrl);
  set('log', 'level', flags.logLevel);
  set('beanstalkd', 'port', flags.beanstalkdPort);
  set('beanstalkd', 'host', flags.beanstalkdHost);
  if (flags.beanstalkdPort !== undefined || flags.beanstalkdHost !== undefined) set('beanstalkd', 'enabled', true);
  return overrides;
}

export async function serve(flags: ServeFlags): Promise<void> {
  const config = loadConfig({ overrides: flagOverrides(flags), file: flags.config });
  // Refused before anything opens: a start that fails half way would leave the HTTP server running.
  checkBeanstalkdConfig(config);
  const logger = pino({ level: config.log.level, base: { service: 'delayq' } });
  const runtime = createRuntime(config, { logger });
  await runtime.start();
  const app = await buildApp(runtime.service, config, {
    logger,
    sinks: runtime.sinks,
    schedules: runtime.schedules,
    metrics: runtime.metrics,
    rateLimits: runtime.rateLimits,
  });
  const url = await app.listen({ host: config.http.host, port: config.http.port });
  logger.info({ url, store: runtime.service.store.kind, data: runtime.location }, 'delayq listening');
  let beanstalkd: Awaited<ReturnType<typeof startBeanstalkd>>;
  let grpc: import('../../grpc/grpc-server.js').DelayqGrpcServer | undefined;
  try {
    beanstalkd = await startBeanstalkd(runtime.service, config, logger);
    // gRPC (and its libraries) load only when enabled.
    grpc = config.grpc.enabled
      ? new (await import('../../grpc/grpc-server.js')).DelayqGrpcServer(runtime.service, config, {
          logger: logger.child({ component: 'grpc' }),
        })
      : undefined;
    if (grpc) logger.info({ grpc: `${config.grpc.host}:${await grpc.listen()}` }, 'delayq gRPC listening');
  } catch (err) {
    // A listener that cannot start (a port in use…) ends the process, not only the start: close what runs.
    await Promise.allSettled([beanstalkd?.close(), grpc?.close()]);
    await closeGracefully(app, runtime);
    throw err;
  }

  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    Promise.all([beanstalkd?.close(), grpc?.close()])
      .then(() => closeGracefully(app, runtime))
      .then(
        () => {
          logger.info('closed');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
