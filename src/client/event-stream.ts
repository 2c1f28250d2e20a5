/**
 * Following job events from the SDK (docs/events.md): an async iterator over a Server-Sent Events stream
 * that reconnects when the stream drops, sending Last-Event-ID so nothing kept in the server's event log is
 * missed or repeated. An error answer (4xx: bad topic, forbidden, no such job) ends it with that error;
 * a one-job stream ends after the server's `end` message. Breaking out of the loop closes the stream.
 */
import { DelayqError } from '../core/errors.js';
import type { WireJobEvent } from '../protocol/job-event-schemas.js';
import type { StreamAnswer, Transport } from './transport.js';

export interface FollowOptions {
  /** Only these event names (finished, failed, dead, cancelled, expired); absent: all. */
  events?: readonly string[] | undefined;
  /** Resume after this event (a previous event's `eventId`); absent: from now on. */
  lastEventId?: string | undefined;
  /** Stops following (the iterator then ends). */
  signal?: AbortSignal | undefined;
  /** Reconnect when the stream drops or the server cannot be reached. @defaultValue true */
  reconnect?: boolean | undefined;
}

/** What the iterator needs of the client: open the stream, and turn an error answer into its DelayqError. */
export interface EventSource {
  open(path: string, lastEventId: string | undefined, signal: AbortSignal): Promise<StreamAnswer>;
  error(status: number, text: string): DelayqError;
}

/** The client's event source: its transport and token, its error answers turned into DelayqErrors. */
export function eventSourceOf(
  transport: Transport,
  token: string | undefined,
  errorOf: (status: number, parsed: unknown, text: string) => DelayqError,
): EventSource {
  return {
    open: (path, lastEventId, signal) => {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (token) headers['authorization'] = `Bearer ${token}`;
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      return transport.stream(path, headers, signal);
    },
    error: (status, text) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return errorOf(status, parsed, text);
    },
  };
}

/** The longest wait between reconnects; the first waits the server's `retry:` (1 s). */
const MAX_RECONNECT_DELAY_MS = 30_000;

export async function* followEvents(
  source: EventSource,
  path: string,
  options: FollowOptions,
  endsWithJob: boolean,
): AsyncGenerator<WireJobEvent, void, undefined> {
  const query = options.events?.length ? `${path.includes('?') ? '&' : '?'}events=${options.events.join(',')}` : '';
  let lastEventId = options.lastEventId;
  let delayMs = 1000;
  let failures = 0;
  for (;;) {
    if (options.signal?.aborted) return;
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      let answer: StreamAnswer;
      try {
        answer = await source.open(path + query, lastEventId, controller.signal);
      } catch (err) {
        if (options.signal?.aborted) return;
        if (options.reconnect === false) throw err;
        answer = { status: 0, body: (async function* () {})() };
      }
      if (answer.status >= 400 && answer.status < 500) {
        let text = '';
        for await (const chunk of answer.body) text += Buffer.from(chunk).toString('utf8');
        throw source.error(answer.status, text);
      }
      if (answer.status === 200) {
        for await (const message of messages(answer.body)) {
          failures = 0;
          if (message.retry !== undefined) delayMs = message.retry;
          if (message.event === 'end' && endsWithJob) return;
          if (message.data === undefined || message.event === undefined || message.event === 'end') continue;
          if (message.id !== undefined) lastEventId = message.id;
          yield JSON.parse(message.data) as WireJobEvent;
        }
      } else {
        for await (const _ of answer.body) void _; // drain a 5xx answer before retrying
      }
    } catch (err) {
      if (options.signal?.aborted) return;
      if (err instanceof DelayqError || options.reconnect === false) throw err;
    } finally {
      options.signal?.removeEventListener('abort', stop);
      controller.abort();
    }
    if (options.reconnect === false) return;
    failures++;
    await sleep(Math.min(delayMs * 2 ** Math.min(failures - 1, 5), MAX_RECONNECT_DELAY_MS), options.signal);
  }
}

interface Message {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
}

/** Server-Sent Events framing: messages separated by a blank line, `field: value` lines, `:` comments. */
async function* messages(body: AsyncIterable<Uint8Array>): AsyncGenerator<Message> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const message: Message = {};
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') message.data = message.data === undefined ? value : `${message.data}\n${value}`;
        else if (field === 'event') message.event = value;
        else if (field === 'id') message.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) message.retry = Number(value);
      }
      yield message;
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
