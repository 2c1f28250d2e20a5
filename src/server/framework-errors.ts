/**
 * Errors Fastify and Node answer before any route runs, put into the API's `{ error: { code, message } }`
 * envelope like every other refusal: an undecodable URL (`/v1/jobs/%ZZ`), and requests the HTTP parser
 * rejects (unknown method, bad header bytes, headers over Node's size limit, a request that never ends).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { DelayqError } from '../core/errors.js';
import { restErrorHandler } from './error-handler.js';

/** Fastify's `frameworkErrors` option: FST_ERR_BAD_URL and friends go through the one error handler. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  restErrorHandler(error, request, reply);
}

/** What a raw parser error says to the client; the socket is closed after it. */
function clientErrorOf(err: Error & { code?: string }): { status: number; error: DelayqError } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: 431,
      error: new DelayqError('E_BODY_TOO_LARGE', 'the request headers are over the size limit', { field: 'headers' }),
    };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: 408,
      error: new DelayqError('E_VALIDATION', 'the request was not received in time', { field: 'request' }),
    };
  }
  return { status: 400, error: new DelayqError('E_VALIDATION', 'malformed HTTP request', { field: 'request' }) };
}

/** Fastify's `clientErrorHandler` option (Node's 'clientError' event); `this` is the Fastify instance. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, error } = clientErrorOf(err);
  const body = JSON.stringify({ error: error.toJSON() });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
