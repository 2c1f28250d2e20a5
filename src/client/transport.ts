/**
 * How the SDK sends its requests. By default over an undici Pool: kept-alive connections to the server,
 * reused request after request, the cheapest client per request of those compared in
 * bench/probes/http-clients.ts. A caller-supplied `fetch` is used as given. node:http (nodeHttpTransport)
 * costs more per request but nothing to load: for programs that send a few requests and exit (the CLI).
 */
import { Agent, request, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Pool } from 'undici';

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
  // undici loads with the first request, so a program that sends none (a CLI's --help) does not pay for it.
  let opened: Promise<Pool> | undefined;
  const pool = (): Promise<Pool> =>
    (opened ??= import('undici').then(
      ({ Pool }) =>
        new Pool(parsed.origin, {
          // Long-polls hold a connection for up to a minute (RESERVE_MAX_WAIT_MS): no timeout may cut them short.
          headersTimeout: 0,
          bodyTimeout: 0,
        }),
    ));
  return {
    async send(method, path, headers, body, signal) {
      const answer = await (
        await pool()
      ).request({
        method,
        path: prefix + path,
        headers,
        body: body ?? null,
        ...(signal ? { signal } : {}),
      });
      return { status: answer.statusCode, text: await answer.body.text() };
    },
    async stream(path, headers, signal) {
      const answer = await (await pool()).request({ method: 'GET', path: prefix + path, headers, signal });
      return { status: answer.statusCode, body: answer.body };
    },
    close: async () => {
      if (opened) await (await opened).close();
    },
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

/** Over node:http (node:https for an https URL) with a kept-alive agent; `url` may carry a path prefix. */
export function nodeHttpTransport(url: string): Transport {
  const parsed = new URL(url);
  const prefix = parsed.pathname.replace(/\/+$/, '');
  const secure = parsed.protocol === 'https:';
  // node:https (and TLS) load only for an https URL.
  let opened: Promise<{ agent: Agent; send: typeof request }> | undefined;
  const open = () =>
    (opened ??= (secure ? import('node:https') : Promise.resolve({ Agent, request })).then((lib) => ({
      agent: new lib.Agent({ keepAlive: true }),
      send: lib.request,
    })));
  const call = async (
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<IncomingMessage> => {
    const { agent, send } = await open();
    const options: RequestOptions = {
      host: parsed.hostname.replace(/^\[|\]$/g, ''),
      port: parsed.port || (secure ? 443 : 80),
      method,
      path: prefix + path,
      headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent,
      ...(signal ? { signal } : {}),
    };
    return new Promise((resolve, reject) => {
      const sent = send(options, resolve);
      sent.once('error', reject);
      sent.end(body);
    });
  };
  return {
    async send(method, path, headers, body, signal) {
      const answer = await call(method, path, headers, body, signal);
      let text = '';
      answer.setEncoding('utf8');
      for await (const chunk of answer) text += chunk as string;
      return { status: answer.statusCode ?? 0, text };
    },
    async stream(path, headers, signal) {
      const answer = await call('GET', path, headers, undefined, signal);
      return { status: answer.statusCode ?? 0, body: answer };
    },
    close: async () => {
      if (opened) (await opened).agent.destroy();
    },
  };
}
