import type { Registry } from 'prom-client';
import type { DelayqApp } from '../route-context.js';
import { authorizeAllTopics } from '../auth.js';

/** Prometheus exposition of the process's registry (sink deliveries, store gauges, process metrics). */
export function registerMetricsRoute(app: DelayqApp, registry: Registry): void {
  app.get(
    '/metrics',
    { schema: { tags: ['health'], summary: 'Prometheus metrics', hide: false } },
    async (request, reply) => {
      authorizeAllTopics(request);
      return reply.type(registry.contentType).send(await registry.metrics());
    },
  );
}
