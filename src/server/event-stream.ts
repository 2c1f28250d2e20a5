/**
 * A Server-Sent Events answer (text/event-stream) on a hijacked Fastify reply: events with their ids,
 * heartbeat comments so proxies keep an idle stream open, and one cleanup when the stream ends for any
 * reason (client gone, job ended, server closing, follower too slow). A follower whose unread bytes pass
 * LIMITS.eventStreamMaxBufferedBytes is cut off: it reconnects and resumes with Last-Event-ID.
 */
import type { FastifyReply } from 'fastify';
import { LIMITS } from '../core/limits.js';

/** Streams open on this server, so closing the server ends them (a hijacked reply would hold close). */
export class EventStreams {
  private readonly open = new Set<EventStream>();

  start(reply: FastifyReply, heartbeatMs: number, onHeartbeat?: (stream: EventStream) => void): EventStream {
    const stream = new EventStream(reply, heartbeatMs, onHeartbeat);
    this.open.add(stream);
    stream.onEnd(() => this.open.delete(stream));
    return stream;
  }

  get size(): number {
    return this.open.size;
  }

  endAll(): void {
    for (const stream of [...this.open]) stream.end('server closing');
  }
}

export class EventStream {
  private readonly reply: FastifyReply;
  private readonly timer: NodeJS.Timeout;
  private readonly cleanups: (() => void)[] = [];
  private ended = false;

  constructor(reply: FastifyReply, heartbeatMs: number, onHeartbeat?: (stream: EventStream) => void) {
    this.reply = reply;
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      // nginx buffers answers unless told not to; an event stream must reach the client as written.
      'x-accel-buffering': 'no',
    });
    reply.raw.write(': delayq events\nretry: 1000\n\n');
    reply.raw.once('close', () => this.end());
    this.timer = setInterval(() => {
      this.comment('heartbeat');
      onHeartbeat?.(this);
    }, heartbeatMs);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Runs once when the stream ends, whatever ended it. */
  onEnd(cleanup: () => void): void {
    if (this.ended) cleanup();
    else this.cleanups.push(cleanup);
  }

  send(event: string, data: unknown, id?: string): void {
    if (this.ended) return;
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  comment(text: string): void {
    if (!this.ended) this.write(`: ${text.replace(/\n/g, ' ')}\n\n`);
  }

  private write(text: string): void {
    this.reply.raw.write(text);
    if (this.reply.raw.writableLength > LIMITS.eventStreamMaxBufferedBytes) this.end('too slow: reconnect and resume');
  }

  /** Ends the stream (with a last comment saying why, when the client is still there). */
  end(why?: string): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.timer);
    for (const cleanup of this.cleanups.splice(0)) {
      try {
        cleanup();
      } catch {
        /* one cleanup's failure must not skip the others */
      }
    }
    const raw = this.reply.raw;
    if (!raw.writableEnded && !raw.destroyed) {
      if (why !== undefined) raw.write(`: ${why}\n\n`);
      raw.end();
    }
  }
}
