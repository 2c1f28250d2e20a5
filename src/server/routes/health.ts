import { HealthResponse } from '../../protocol/schemas.js';
import type { DelayqApp, RouteContext } from '../route-context.js';

/** Liveness (`/health`: the process answers) and readiness (`/ready`: the service is open and the store answers). */
export function registerHealthRoutes(app: DelayqApp, { service }: RouteContext): void {
  app.get(
    '/health',
    { schema: { tags: ['health'], summary: 'Liveness', response: { 200: HealthResponse } } },
    async () => ({
      status: 'ok' as const,
    }),
  );

  app.get(
    '/ready',
    {
      schema: {
        tags: ['health'],
        summary:
          'Readiness: 503 while starting, closing or when the store fails; 200 degraded for a while after a ' +
          'failover lost acknowledged writes',
        response: { 200: HealthResponse, 503: HealthResponse },
      },
    },
    async (_request, reply) => {
      let ready = service.isOpen;
      if (ready) {
        try {
          await service.store.nextWakeAt(); // a cheap read that reaches the store
        } catch {
          ready = false;
        }
      }
      // degraded still serves (200): a restart would not bring the writes back, only hide the loss
      const reason = ready ? service.storeNotices.degradedReason(service.clock.now()) : null;
      return reply.status(ready ? 200 : 503).send({
        status: ready ? (reason ? 'degraded' : 'ok') : 'unavailable',
        ...(reason ? { reason } : {}),
        store: service.store.kind,
        waitingConsumers: service.waitingConsumers,
        storeResets: service.storeNotices.resets,
        storeWriteLosses: service.storeNotices.writeLosses,
      });
    },
  );
}
