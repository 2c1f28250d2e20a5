/**
 * How the SDK sends its requests. By default over an undici Pool: kept-alive connections to the server,
 * reused request after request, the cheapest client per request of those compared in
 * bench/probes/http-clients.ts. A caller-supplied `fetch` is used as given.
 */
import { Pool } from 'undici';

/** The methods the SDK sends. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpAnswer {
  status: number;
  text: string;
}

export interface Transport {
  send(
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal?: AbortSignal,
  ): Promise<HttpAnswer>;
  /** A GET whose answer is read as it arrives (an event stream); the body must be consumed or aborted. */
  stream(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<StreamAnswer>;
  /** Closes the kept-alive connections (a pending long-poll is dropped). */
  close(): Promise<void>;
}

export interface StreamAnswer {
  status: number;
  body: AsyncIterable<Uint8Array>;
}

/** `url` may carry a path prefix (a server behind a proxy at /delayq): it is kept in front of every path. */
export function poolTransport(url: string): Transport {
  const parsed = new URL(url);
  const prefix = parsed.pathname.replace(/\/+$/, '');
  const pool = new Pool(parsed.origin, {
    // Long-polls hold a connection for up to a minute (RESERVE_MAX_WAIT_MS): no timeout may cut them short.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  return {
    async send(method, path, headers, body, signal) {
      const answer = await pool.request({
        method,
        path: prefix + path,
        headers,
        body: body ?? null,
        ...(signal ? { signal } : {}),
      });
      return { status: answer.statusCode, text: await answer.body.text() };
    },
    async stream(path, headers, signal) {
      const answer = await pool.request({ method: 'GET', path: prefix + path, headers, signal });
      return { status: answer.statusCode, body: answer.body };
    },
    close: () => pool.close(),
  };
}

export function fetchTransport(url: string, fetchImpl: typeof fetch): Transport {
  return {
    async send(method, path, headers, body, signal) {
      const response = await fetchImpl(url + path, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(signal ? { signal } : {}),
      });
      return { status: response.status, text: await response.text() };
    },
    async stream(path, headers, signal) {
      const response = await fetchImpl(url + path, { headers, signal });
      const body = response.body ?? (async function* () {})();
      return { status: response.status, body: body as AsyncIterable<Uint8Array> };
    },
    close: async () => {},
  };
}
