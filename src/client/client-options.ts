/**
 * How a DelayqClient is set up: its options, the server it talks to by default, and the transport
 * (transport.ts) those options choose.
 */
import { fetchTransport, nodeHttpTransport, poolTransport, type Transport } from './transport.js';

export interface DelayqClientOptions {
  /** Base URL of the server. @defaultValue http://127.0.0.1:7750 (the server's default listener, config.ts) */
  url?: string;
  /** Bearer token, when the server requires one. */
  token?: string | undefined;
  /** A fetch implementation to send requests through. @defaultValue kept-alive connections of an undici Pool */
  fetch?: typeof fetch;
  /**
   * How requests travel when no `fetch` is given: `pool`, an undici Pool (the cheapest per request), or
   * `node`, node:http with a kept-alive agent (dearer per request, but nothing to load: for a program that
   * sends a few requests and exits, as the CLI does). @defaultValue 'pool'
   */
  http?: 'pool' | 'node';
  /**
   * Sends the `push()` calls of one event-loop turn (or of `pushWindowMs`) as batch requests; each call
   * still gets its own job or its own error (push-coalescer.ts). Pushes with a `signal` go out alone.
   * @defaultValue true
   */
  coalescePushes?: boolean;
  /** How long a push waits for others to go out with, ms; 0: those of the same event-loop turn. @defaultValue 0 */
  pushWindowMs?: number;
}

/**
 * config.ts's default listener, written out so the SDK does not load the config schema (TypeBox);
 * test/house/defaults.test.ts keeps the two equal.
 */
export const DEFAULT_CLIENT_URL = 'http://127.0.0.1:7750';

/** The given `fetch` as is; else node:http when asked for, else an undici Pool. */
export function transportFor(url: string, options: DelayqClientOptions): Transport {
  return options.fetch
    ? fetchTransport(url, options.fetch)
    : options.http === 'node'
      ? nodeHttpTransport(url)
      : poolTransport(url);
}
