import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { isDelayqError } from '../core/errors.js';
import { commandNameOf, runCommand } from './commands.js';
import { commandOf, readJobId } from './command-line.js';
import { CLIENT_GONE_REASON, type ConnectionState, type Held } from './connection-state.js';
import type { BeanstalkdContext } from './context.js';
import { LIMITS } from '../core/limits.js';
import { deleteMany, putMany, reserveMany } from './batch-commands.js';
import { pipelineRuns, type Run } from './pipeline-runs.js';
import type { Reply } from './replies.js';
import { ReplyQueue } from './reply-queue.js';
import { WireParser } from './wire-parser.js';

/** Commands that may run while earlier ones of the same connection are still running (their replies stay in order). */
const CONCURRENT: ReadonlySet<string> = new Set(['put', 'delete', 'touch', 'release', 'bury']);
/** Stop reading from a client that sends faster than it reads its replies. */
const MAX_PENDING = 1000;
/** Most commands of one run (pipeline-runs.ts) executed as one; a reserve run's jobs are one store call. */
const MAX_RUN = LIMITS.reserveMaxCount;

/**
 * One client: its used tube, watch list and reserved jobs. Frames run in the order they came, each after
 * the one before it ended, except that put/delete/touch/release/bury go out at once (pipelined clients get
 * store calls batched), and that a run of puts, deletes or reserves read together runs as one
 * (batch-commands.ts). Replies are written in command order, those of one turn together. When the client
 * goes away, the jobs it holds are released at once and a reserve it was waiting in is abandoned.
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
  readonly remote: string | null;
  readonly openedAt: number;
  readonly ctx: BeanstalkdContext;
  private readonly socket: Socket;
  private readonly logger: Logger;
  private readonly parser: WireParser;
  private readonly replies: ReplyQueue;
  /** Settles when every frame so far has run (the next non-concurrent frame waits for it). */
  private barrier: Promise<unknown> = Promise.resolve();
  /** Concurrent frames started since the last barrier and still running. */
  private readonly running = new Set<Promise<unknown>>();
  /** Per job number, the last concurrent frame naming it since the barrier: commands on one job run in order. */
  private readonly lastOnJob = new Map<number, Promise<unknown>>();
  private pending = 0;
  /** A quit was read: later frames are not run. */
  private quitting = false;
  /** Settles once the client is gone and what it held is released. */
  readonly closed: Promise<void>;
  private markClosed!: () => void;

  constructor(socket: Socket, ctx: BeanstalkdContext, logger: Logger) {
    this.socket = socket;
    this.ctx = ctx;
    this.logger = logger;
    this.parser = new WireParser(ctx.maxJobSize);
    this.remote = socket.remoteAddress === undefined ? null : `${socket.remoteAddress}:${socket.remotePort}`;
    this.openedAt = ctx.service.clock.now();
    this.replies = new ReplyQueue(socket, (n) => {
      this.pending -= n;
      if (this.pending < MAX_PENDING && this.socket.isPaused()) this.socket.resume();
    });
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => void this.onClose());
  }

  private onData(chunk: Buffer): void {
    if (this.quitting) return;
    for (const run of pipelineRuns(this.parser.push(chunk), MAX_RUN)) {
      if (this.quitting) return;
      this.schedule(run);
    }
  }

  private schedule(run: Run): void {
    let work: () => Promise<Reply[]>;
    let concurrent: boolean;
    let count = 1;
    let jobNumbers: readonly number[] = [];
    switch (run.kind) {
      case 'put':
        count = run.puts.length;
        for (let i = 0; i < run.puts.length; i++) this.ctx.count('put');
        work = () => this.settleAll(count, () => putMany(this, run.puts));
        concurrent = true;
        break;
      case 'delete':
        count = run.numbers.length;
        jobNumbers = run.numbers;
        for (let i = 0; i < run.numbers.length; i++) this.ctx.count('delete');
        work = () => this.settleAll(count, () => deleteMany(this, run.numbers, this.answer));
        concurrent = true;
        break;
      case 'reserve':
        count = run.count;
        for (let i = 0; i < run.count; i++) this.ctx.count(run.name);
        work = () => this.settleAll(count, () => reserveMany(this, run.count, run.timeoutSeconds, this.answer));
        concurrent = false;
        break;
      case 'one': {
        const { frame } = run;
        const name = commandNameOf(frame);
        if (name === 'quit') this.quitting = true;
        work = () => this.answer(() => runCommand(this, frame)).then((r) => [r]);
        concurrent = name !== null && CONCURRENT.has(name);
        // The job a delete, touch, release or bury names: commands on one job keep their order.
        const number = concurrent && frame.kind === 'line' ? readJobId(commandOf(frame.line)!.rest, false) : null;
        if (number) jobNumbers = [number.value];
        break;
      }
    }
    const fill = this.replies.add(count);
    let done: Promise<Reply[]>;
    if (concurrent) {
      const before = jobNumbers.map((n) => this.lastOnJob.get(n)).filter((p) => p !== undefined);
      done = (before.length ? Promise.all([this.barrier, ...before]) : this.barrier).then(work);
      this.running.add(done);
      for (const n of jobNumbers) this.lastOnJob.set(n, done);
      void done.then(() => {
        this.running.delete(done);
        for (const n of jobNumbers) if (this.lastOnJob.get(n) === done) this.lastOnJob.delete(n);
      });
    } else {
      done = (this.running.size ? Promise.all([this.barrier, ...this.running]) : this.barrier).then(work);
      this.barrier = done;
      this.running.clear();
      this.lastOnJob.clear();
    }
    this.pending += count;
    if (this.pending >= MAX_PENDING) this.socket.pause();
    void done.then(fill);
  }

  /** One command's reply; a command that threw answers DRAINING (shutting down) or INTERNAL_ERROR. */
  private readonly answer = async (command: () => Promise<Reply> | Reply): Promise<Reply> => {
    if (this.gone.signal.aborted) return null;
    try {
      return await command();
    } catch (err) {
      return this.failed(err);
    }
  };

  /** A run's replies; when the run as a whole threw, each of its commands answers the error. */
  private async settleAll(count: number, run: () => Promise<Reply[]>): Promise<Reply[]> {
    if (this.gone.signal.aborted) return [];
    try {
      return await run();
    } catch (err) {
      return Array<Reply>(count).fill(this.failed(err));
    }
  }

  private failed(err: unknown): Reply {
    if (isDelayqError(err) && err.code === 'E_SHUTTING_DOWN') return 'DRAINING\r\n';
    this.logger.error({ err }, 'beanstalkd command failed');
    return 'INTERNAL_ERROR\r\n';
  }

  /** The client went away: abandon its waits and release what it holds. */
  private async onClose(): Promise<void> {
    this.gone.abort();
    this.ctx.connections.delete(this);
    await this.barrier.catch(() => undefined);
    await Promise.allSettled([...this.running]);
    await this.releaseHeld();
    await this.ctx.forgetGone([this.used, ...this.watched]);
    this.markClosed();
  }

  async releaseHeld(): Promise<void> {
    const held = [...this.held.values()];
    this.held.clear();
    await Promise.allSettled(held.map((h) => this.ctx.service.release(h.id, h.token, { reason: CLIENT_GONE_REASON })));
  }

  get heldCount(): number {
    return this.held.size;
  }

  get isGone(): boolean {
    return this.gone.signal.aborted;
  }
}
