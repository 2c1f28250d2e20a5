/**
 * One HTTP call of the SDK: the bearer token, the JSON body, and an error answer turned back into the
 * DelayqError the server threw. DelayqClient's methods are paths and bodies over this.
 */
import { DelayqError } from '../core/errors.js';
import { errorFromResponse } from './error-answer.js';
import type { HttpMethod, Transport } from './transport.js';
import { eventSourceOf, type EventSource } from './event-stream.js';

export interface RequestOptions {
  /** Aborts the request (for reserve: the server then releases anything it reserved for it). */
  signal?: AbortSignal | undefined;
}

export class ApiRequester {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly transport: Transport;

  constructor(url: string, token: string | undefined, transport: Transport) {
    this.url = url;
    this.token = token;
    this.transport = transport;
  }

  async request<T>(method: HttpMethod, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
    return this.requestText(method, path, body === undefined ? undefined : JSON.stringify(body), options);
  }

  async requestText<T>(
    method: HttpMethod,
    path: string,
    body: string | undefined,
    options: RequestOptions = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers['authorization'] = `Bearer ${this.token}`;
    let response: { status: number; text: string };
    try {
      response = await this.transport.send(method, path, headers, body, options.signal);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new DelayqError('E_STORE_UNAVAILABLE', `cannot reach delayq at ${this.url}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const { status, text } = response;
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (status >= 200 && status < 300) return parsed as T;
    throw errorFromResponse(status, parsed, text);
  }

  /** The event streams' connection: same transport and token, same error answers. */
  eventSource(): EventSource {
    return eventSourceOf(this.transport, this.token, errorFromResponse);
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

export function queryString(query: Record<string, string | number | boolean | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}
