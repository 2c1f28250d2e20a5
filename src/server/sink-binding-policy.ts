/**
 * Who may point a topic at what. A token limited to some topics may bind its topics to a webhook on the
 * public internet, behind the SSRF guard. It may not weaken the guard (`allowedRanges` opens loopback,
 * private or link-local addresses — the cloud metadata service, internal admin ports) nor aim a topic at
 * a broker (RabbitMQ, NATS, MQTT, STOMP, Redis Streams), whose client connects to any host it is given
 * without a guard: both reach the network delayq runs in, so they take an all-topics (operator) token.
 */
import type { FastifyRequest } from 'fastify';
import { DelayqError } from '../core/errors.js';

export function authorizeSinkConfig(request: FastifyRequest, sink: { type?: unknown; allowedRanges?: unknown }): void {
  if (!request.principal || request.principal.topicPrefixes === null) return;
  const opensRanges = Array.isArray(sink.allowedRanges) && sink.allowedRanges.length > 0;
  if (sink.type !== 'webhook' || opensRanges) {
    throw new DelayqError(
      'E_FORBIDDEN',
      opensRanges
        ? 'this token is limited to some topics; opening address ranges to a webhook (allowedRanges) takes an all-topics token'
        : `this token is limited to some topics; a ${String(sink.type)} sink connects to internal hosts and takes an all-topics token`,
      { field: opensRanges ? 'allowedRanges' : 'type' },
    );
  }
}
