import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { isDelayqError } from '../core/errors.js';
import { runCommand } from './commands.js';
import type { ConnectionState, Held } from './connection-state.js';
import type { BeanstalkdContext } from './context.js';
import type { Reply } from './replies.js';
import { WireParser, type Frame } from './wire-parser.js';

/** Commands that may run while earlier ones of the same connection are still running (their replies stay in order). */
const CONCURRENT = new Set(['put', 'delete', 'touch', 'release', 'bury']);
/** Stop reading from a client that sends faster than it reads its replies. */
const MAX_PENDING = 1000;

/**
 * One client: its used tube, watch list and reserved jobs. Frames run in the order they came, each after
 * the one before it ended, except that a run of put/delete/touch/release/bury goes out at once (pipelined
 * clients get store calls batched); replies are written in order. When the client goes away, the jobs
 * it holds are released at once and a reserve it was waiting in is abandoned (anything it got released).
 */
export class Connection implements ConnectionState {
  used = 'default';
  watched: string[] = ['default'];
  readonly held = new Map<number, Held>();
  isWaiting = false;
  isProducer = false;
  isWorker = false;
  /** Aborted when the client goes away. */
  readonly gone = new AbortController();
  readonly ctx: BeanstalkdContext;
  private readonly socket: Socket;
  private readonly logger: Logger;
  private readonly parser: WireParser;
  /** Settles when every frame so far has run (the next non-concurrent frame waits for it). */
  private barrier: Promise<unknown> = Promise.resolve();
  /** Concurrent frames started since the last barrier. */
  private running: Promise<unknown>[] = [];
  /** Settles when the replies so far are written. */
  private writes: Promise<void> = Promise.resolve();
  private pending = 0;
  private quitting = false;
  /** Settles once the client is gone and what it held is released. */
  readonly closed: Promise<void>;
  private markClosed!: () => void;

  constructor(socket: Socket, ctx: BeanstalkdContext, logger: Logger) {
    this.socket = socket;
    this.ctx = ctx;
    this.logger = logger;
    this.parser = new WireParser(ctx.maxJobSize);
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => void this.onClose());
  }

  private onData(chunk: Buffer): void {
    if (this.quitting) return;
    for (const frame of this.parser.push(chunk)) this.schedule(frame);
  }

  private schedule(frame: Frame): void {
    const name = frame.kind === 'line' ? frame.line.split(' ', 1)[0]! : frame.kind === 'put' ? 'put' : '';
    const run = (): Promise<Reply> => this.execute(frame);
    let reply: Promise<Reply>;
    if (CONCURRENT.has(name)) {
      reply = this.barrier.then(run);
      this.running.push(reply);
    } else {
      reply = Promise.all([this.barrier, ...this.running]).then(run);
      this.barrier = reply;
      this.running = [];
    }
    if (++this.pending >= MAX_PENDING) this.socket.pause();
    this.writes = this.writes.then(() => reply).then((r) => this.write(r));
  }

  private async execute(frame: Frame): Promise<Reply> {
    if (this.gone.signal.aborted) return null;
    try {
      return await runCommand(this, frame);
    } catch (err) {
      if (isDelayqError(err) && err.code === 'E_SHUTTING_DOWN') return 'DRAINING\r\n';
      this.logger.error({ err }, 'beanstalkd command failed');
      return 'INTERNAL_ERROR\r\n';
    }
  }

  private write(reply: Reply): void {
    if (--this.pending < MAX_PENDING && this.socket.isPaused()) this.socket.resume();
    if (reply === 'quit') {
      this.quitting = true;
      this.socket.end();
      return;
    }
    if (reply !== null && !this.socket.destroyed) this.socket.write(reply);
  }

  /** The client went away: abandon its waits and release what it holds. */
  private async onClose(): Promise<void> {
    this.gone.abort();
    this.ctx.connections.delete(this);
    await this.barrier.catch(() => undefined);
    await Promise.allSettled(this.running);
    await this.releaseHeld();
    this.markClosed();
  }

  async releaseHeld(): Promise<void> {
    const held = [...this.held.values()];
    this.held.clear();
    await Promise.allSettled(held.map((h) => this.ctx.service.release(h.id, h.token)));
  }

  get isGone(): boolean {
    return this.gone.signal.aborted;
  }
}
