/** Reserving on behalf of an HTTP request: the reservations follow the fate of its connection. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Reservation } from '../core/job.js';
import type { DelayqService, ReserveRequest } from '../service/service.js';

/** Gives reservations back at once: their consumer went away before it could receive them. */
export async function releaseAll(service: DelayqService, reservations: readonly Reservation[]): Promise<number> {
  const results = await Promise.allSettled(reservations.map((r) => service.release(r.job.id, r.token)));
  return results.filter((r) => r.status === 'fulfilled').length;
}

/**
 * Reserves for an HTTP request, tied to its connection: if the client disconnects while waiting, the
 * wait stops; if it disconnected by the time jobs were reserved, they are released at once (instead of
 * waiting out their TTR) and the answer is empty. While it waits, the client is listed among the consumers
 * (GET /v1/consumers). Used by every route that reserves.
 */
export async function reserveForRequest(
  service: DelayqService,
  request: FastifyRequest,
  reply: FastifyReply,
  reserve: ReserveRequest,
): Promise<Reservation[]> {
  const clientGone = new AbortController();
  const onClose = (): void => {
    if (!reply.raw.writableEnded) clientGone.abort();
  };
  reply.raw.once('close', onClose);
  try {
    const { remoteAddress, remotePort } = request.raw.socket;
    const remote = remoteAddress === undefined ? null : `${remoteAddress}:${remotePort}`;
    const reservations = await service.reserve(reserve, clientGone.signal, { remote });
    if (reservations.length && (clientGone.signal.aborted || request.raw.socket.destroyed)) {
      const released = await releaseAll(service, reservations);
      request.log.info({ released }, 'consumer disconnected during reserve; released its jobs');
      return [];
    }
    return reservations;
  } finally {
    reply.raw.off('close', onClose);
  }
}
