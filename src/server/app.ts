/**
 * buildApp(service, config): the HTTP API as a Fastify instance, ready for `listen()` or `inject()`; it
 * never listens itself. Validation uses the TypeBox schemas of protocol/schemas.ts (no type coercion of
 * JSON bodies, unknown fields refused), which also produce the OpenAPI document at /openapi.json and the
 * docs page at /docs.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import { pino, type Logger } from 'pino';
import type { Config } from '../config.js';
import { RESERVE_MAX_WAIT_MS } from '../protocol/reservation-schemas.js';
import type { DelayqService } from '../service/service.js';
import { registerAuditLog } from './audit-log.js';
import type { DelayqApp, RestoreHandler, RouteContext } from './route-context.js';
import { registerAuth } from './auth.js';
import { registerCrossSiteGuard } from './cross-site.js';
import { CompatReservations } from './compat-reservations.js';
import { notFoundHandler, restErrorHandler } from './error-handler.js';
import { clientErrorHandler, frameworkErrorHandler } from './framework-errors.js';
import { registerRateLimit } from './rate-limit.js';
import { registerDeadRoutes } from './routes/dead.js';
import { registerBulkRoute } from './routes/bulk.js';
import { registerListingRoutes } from './routes/listings.js';
import { registerJobEventRoutes } from './routes/job-events.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerJobRoutes } from './routes/jobs.js';
import { mykitRoutes } from './routes/mykit.js';
import { registerReservationRoutes } from './routes/reservations.js';
import { registerAckRoute } from './routes/ack.js';
import { registerTopicRoutes } from './routes/topics.js';
import { registerDueHistogramRoute } from './routes/due-histogram.js';
import { registerStatsSeriesRoute } from './routes/stats-series.js';
import { registerConsoleRoutes } from './routes/console.js';
import { registerTopicPauseRoutes } from './routes/topic-pauses.js';
import { registerGroupPauseRoutes } from './routes/group-pauses.js';
import { registerTopicSettingsRoutes } from './routes/topic-settings.js';
import { registerConsumerRoutes } from './routes/consumers.js';
import { youzanRoutes } from './routes/youzan.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { registerSinkRoutes } from './routes/sinks.js';
import { BEARER_SCHEME, documentObject, documentRoute } from './openapi-document.js';
import { registerScheduleRoutes } from './routes/schedules.js';
import type { Schedules } from '../schedules/schedules.js';
import { journalRestoreHandler, registerJournalRoutes } from './routes/journal.js';
import type { SinkBindings } from '../delivery/sink-bindings.js';
import type { Registry } from 'prom-client';
import type { SharedRateLimits } from '../store/backend.js';

export interface BuildAppOptions {
  logger?: Logger;
  /** Restore and clear-all for the mykit endpoints; they need the SQL journal (wired by the composition root). */
  restore?: RestoreHandler;
  /** Version string shown in the OpenAPI document. */
  version?: string;
  /** Delivery bindings (docs/sinks.md): when given, /v1/sinks and /v1/topics/:topic/sink manage them. */
  sinks?: SinkBindings;
  /** Schedules (docs/schedules.md): when given, /v1/schedules manages them. */
  schedules?: Schedules;
  /** When given, served at /metrics. */
  metrics?: Registry;
  /**
   * The backend's shared rate-limit counters (DelayqRuntime.rateLimits, Backend.rateLimits): every instance
   * on the backend counts in them. Absent: this process counts alone.
   */
  rateLimits?: SharedRateLimits | undefined;
}

export async function buildApp(
  service: DelayqService,
  config: Readonly<Config>,
  options: BuildAppOptions = {},
): Promise<DelayqApp> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const app: DelayqApp = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.http.bodyLimitBytes,
    // Long-polls hold a request for up to RESERVE_MAX_WAIT_MS: no timeout may cut them short.
    requestTimeout: RESERVE_MAX_WAIT_MS + 30_000,
    keepAliveTimeout: RESERVE_MAX_WAIT_MS + 15_000,
    connectionTimeout: 0,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  // TypeBox's compiler: JSON bodies are checked as sent (Fastify's default Ajv setup would coerce "5" to 5
  // and silently drop unknown fields); query strings and path parameters are converted from text.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  app.setErrorHandler(restErrorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Only JSON bodies: without this, Fastify's text/plain parser hands a JSON text over as a string, refused as `body`.
  app.removeContentTypeParser('text/plain');

  // Registered only when debug is on: a hook on every request costs even when its line is dropped.
  if (logger.isLevelEnabled('debug')) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.debug(
        { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    });
  }
  if (config.log.bodies) {
    app.addHook('preHandler', async (request) => {
      if (request.body !== undefined) request.log.debug({ body: request.body }, 'request body');
    });
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'delayq',
        version: options.version ?? '0.1.0',
        description: 'A delay queue: push a job now, have it reserved by a consumer later, at least once.',
      },
      components: { securitySchemes: { bearer: BEARER_SCHEME } },
      tags: [
        { name: 'jobs', description: 'push, get, cancel, reschedule, list' },
        { name: 'reservations', description: 'reserve (long-poll), touch, finish, fail, release, batch ack' },
        { name: 'topics', description: 'stats' },
        { name: 'dead', description: 'dead letters and redrive' },
        {
          name: 'events',
          description: 'follow job events (finished, failed, dead…) as Server-Sent Events (docs/events.md)',
        },
        { name: 'journal', description: 'restore after a store loss, clear-all, journal status (docs/journal.md)' },
        { name: 'sinks', description: 'delivery bindings: deliver due jobs to a webhook or a broker (docs/sinks.md)' },
        {
          name: 'schedules',
          description: 'periodic jobs by cron or interval, fired once per tick (docs/schedules.md)',
        },
        { name: 'health' },
        { name: 'compat', description: 'seed-compatible endpoints (mykit-delay, Youzan); see docs/compat.md' },
      ],
    },
    transform: documentRoute,
    transformObject: documentObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  registerCrossSiteGuard(app, config.http);
  registerAuth(app, config.auth.tokens);
  await registerRateLimit(app, config.rateLimit, options.rateLimits);
  registerAuditLog(app);
  const context: RouteContext = { service, config };
  registerHealthRoutes(app, context);
  registerJobRoutes(app, context);
  registerReservationRoutes(app, context);
  registerAckRoute(app, context);
  registerTopicRoutes(app, context);
  registerDueHistogramRoute(app, context);
  registerStatsSeriesRoute(app, context);
  registerTopicPauseRoutes(app, context);
  registerGroupPauseRoutes(app, context);
  registerTopicSettingsRoutes(app, context);
  registerConsumerRoutes(app, context);
  registerDeadRoutes(app, context);
  registerBulkRoute(app, context);
  registerListingRoutes(app, context);
  registerJobEventRoutes(app, context);
  if (options.sinks) registerSinkRoutes(app, options.sinks, service.clock);
  if (options.schedules) registerScheduleRoutes(app, options.schedules);
  registerJournalRoutes(app, service);
  if (options.metrics) registerMetricsRoute(app, options.metrics);
  await registerConsoleRoutes(app);

  const compat = new CompatReservations();
  await app.register(mykitRoutes, {
    ...context,
    compat,
    restore: options.restore ?? (service.journal.available ? journalRestoreHandler(service) : undefined),
  });
  await app.register(youzanRoutes, { ...context, compat });
  return app;
}

/**
 * Graceful shutdown of server and service together: stop accepting connections, wake pending long-polls
 * (they answer empty), let in-flight calls settle and close the store, then give responses `graceMs` to
 * be written before destroying connections that are still open (a client may hold an idle connection
 * on which it never sent a request; Node would otherwise wait for it).
 */
export async function closeGracefully(
  app: DelayqApp,
  service: Pick<DelayqService, 'close'>,
  graceMs = 2000,
): Promise<void> {
  const serverClosed = app.close();
  await service.close();
  const timer = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await serverClosed;
  } finally {
    clearTimeout(timer);
  }
}

export type { DelayqApp, RestoreHandler, RouteContext } from './route-context.js';
