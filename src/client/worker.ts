/**
 * The seeds' "plug-in mode": register a handler per topic and let the Worker run the consumer loop.
 * Its slots are shared out among `lanes` reserve loops; each long-polls `reserve` for as many jobs as
 * it has free slots, runs each handler, touches the reservation at about half its TTR while the handler
 * runs, finishes the job when the handler resolves and fails it (with the error text) when it throws.
 * A slot is free again once its handler is done. The finishes and fails gathered by then ride on the lane's
 * next reserve (`acks`), so a steady consumer makes one round trip per batch; those that no reserve takes
 * within one event-loop turn (or `ackDelayMs`) go out together as one `POST /v1/ack` (ack-batcher.ts), and
 * close() flushes them.
 * With two lanes one reserve call is under way while the other lane's jobs run, instead of the server
 * and the consumer taking turns, so neither waits for the other. Never more than `concurrency` jobs are held. `close()` stops reserving, drops
 * the pending long-polls (the server releases anything reserved for them) and waits for the running
 * handlers, whose jobs are still finished or failed.
 */
import { DelayqError, isDelayqError, type ErrorCode } from '../core/errors.js';
import type { WireJob } from '../protocol/schemas.js';
import type { WireReservation } from '../protocol/reservation-schemas.js';
import { LIMITS } from '../core/limits.js';
import type { AckResult } from '../protocol/ack-schemas.js';
import { AckBatcher } from './ack-batcher.js';
import type { DelayqClient } from './client.js';

export interface JobContext {
  /** The reservation token (for calls the handler makes itself). */
  token: string;
  /** Delivery number of this job, 1 for the first. */
  attempt: number;
  /** Aborted when the reservation was lost (TTR lapsed and the job went to another consumer). */
  signal: AbortSignal;
  /** Extends the reservation now (the worker also does this on its own). */
  touch(ttrMs?: number): Promise<void>;
}

export type JobHandler = (job: WireJob, context: JobContext) => unknown;

export interface WorkerOptions {
  /** One handler per topic; the worker reserves from exactly these topics. */
  handlers: Record<string, JobHandler>;
  /** Handlers running at once. @defaultValue 1 */
  concurrency?: number;
  /** Reserve loops sharing the `concurrency` slots (at most one per slot). @defaultValue 2 */
  lanes?: number;
  /** Long-poll wait per reserve call, ms (at most 60 000). @defaultValue 30 000 */
  waitMs?: number;
  /** TTR for the reservations, ms; the jobs' own TTR when absent. */
  ttrMs?: number;
  /** Touch reservations while handlers run, at about half the TTR. @defaultValue true */
  autoTouch?: boolean;
  /** Wait after a failed reserve call before trying again, ms (doubles up to 30 s). @defaultValue 500 */
  errorBackoffMs?: number;
  /** Gather finishes and fails this long before sending them as one batch, ms; 0: those of one event-loop turn. @defaultValue 0 */
  ackDelayMs?: number;
  /** Errors the worker survives: reserve/finish/fail/touch calls that failed. @defaultValue ignore */
  onError?: (err: unknown, job?: WireJob) => void;
}

export class Worker {
  private readonly client: DelayqClient;
  private readonly handlers: Record<string, JobHandler>;
  private readonly topics: string[];
  private readonly concurrency: number;
  private readonly waitMs: number;
  private readonly ttrMs: number | undefined;
  private readonly autoTouch: boolean;
  private readonly errorBackoffMs: number;
  private readonly onError: (err: unknown, job?: WireJob) => void;
  private readonly lanes: Lane[];
  private readonly acks: AckBatcher;
  /** Acknowledgements given and not answered yet (close() waits for them). */
  private readonly settling = new Set<Promise<void>>();
  private loops: Promise<void>[] | undefined;
  private closing = false;
  private processedCount = 0;

  constructor(client: DelayqClient, options: WorkerOptions) {
    this.client = client;
    this.handlers = options.handlers;
    this.topics = Object.keys(options.handlers);
    if (this.topics.length === 0)
      throw new DelayqError('E_VALIDATION', 'handlers: register at least one topic', { field: 'handlers' });
    this.concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1 || this.concurrency > 100) {
      throw new DelayqError('E_VALIDATION', 'concurrency: must be an integer from 1 to 100', { field: 'concurrency' });
    }
    const lanes = options.lanes ?? 2;
    if (!Number.isInteger(lanes) || lanes < 1 || lanes > 100) {
      throw new DelayqError('E_VALIDATION', 'lanes: must be an integer from 1 to 100', { field: 'lanes' });
    }
    // Equal shares, the first lanes taking one more slot when they do not divide evenly (5 → 3 + 2).
    const count = Math.min(lanes, this.concurrency);
    const share = Math.floor(this.concurrency / count);
    this.lanes = Array.from({ length: count }, (_, i) => newLane(share + (i < this.concurrency % count ? 1 : 0)));
    this.waitMs = options.waitMs ?? 30_000;
    this.ttrMs = options.ttrMs;
    this.autoTouch = options.autoTouch ?? true;
    this.errorBackoffMs = options.errorBackoffMs ?? 500;
    this.onError = options.onError ?? (() => {});
    const ackDelayMs = options.ackDelayMs ?? 0;
    if (!Number.isInteger(ackDelayMs) || ackDelayMs < 0 || ackDelayMs > 10_000) {
      throw new DelayqError('E_VALIDATION', 'ackDelayMs: must be an integer from 0 to 10000', { field: 'ackDelayMs' });
    }
    this.acks = new AckBatcher(client, ackDelayMs);
  }

  /** Jobs handled so far (finished or failed). */
  get processed(): number {
    return this.processedCount;
  }

  get running(): number {
    return this.lanes.reduce((n, lane) => n + lane.inFlight.size, 0);
  }

  start(): this {
    if (!this.loops && !this.closing) this.loops = this.lanes.map((lane) => this.run(lane));
    return this;
  }

  /** Stops reserving and resolves when every running handler is done and its job finished or failed. */
  async close(): Promise<void> {
    this.closing = true;
    for (const lane of this.lanes) {
      lane.poll?.abort();
      lane.wake?.();
    }
    await Promise.all(this.loops ?? []);
    const running = Promise.allSettled(this.lanes.flatMap((lane) => [...lane.inFlight]));
    await this.acks.flush(); // what is gathered goes out now, not after ackDelayMs
    await running;
    await this.acks.flush();
    await Promise.allSettled([...this.settling]);
  }

  /** One lane's loop: reserve for its free slots, start a handler per job, and again. */
  private async run(lane: Lane): Promise<void> {
    let failures = 0;
    while (!this.closing) {
      const free = lane.slots - lane.inFlight.size;
      if (free <= 0) {
        await this.pause(lane, Promise.race(lane.inFlight));
        continue;
      }
      // The acknowledgements gathered so far ride on this reserve, settled by the server before it reserves. It
      // waits at most CARRYING_WAIT_MS and close() lets it end rather than dropping it, so their results come back.
      const carried = this.acks.take(LIMITS.ackBatchMax);
      lane.poll = carried.length ? undefined : new AbortController();
      let reservations: WireReservation[];
      try {
        const answer = await this.client.reserveAndAck(
          {
            topics: this.topics,
            count: free,
            waitMs: carried.length ? Math.min(this.waitMs, CARRYING_WAIT_MS) : this.waitMs,
            ...(this.ttrMs === undefined ? {} : { ttrMs: this.ttrMs }),
            ...(carried.length ? { acks: carried.map((item) => item.ack) } : {}),
          },
          lane.poll ? { signal: lane.poll.signal } : {},
        );
        if (carried.length) this.acks.settle(carried, answer.acks ?? []);
        reservations = answer.reservations;
        failures = 0;
      } catch (err) {
        this.acks.giveBack(carried, err);
        if (this.closing) break;
        this.onError(err);
        failures++;
        const delayMs = Math.min(30_000, this.errorBackoffMs * 2 ** Math.min(failures - 1, 10));
        await this.pause(lane, new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref()));
        continue;
      }
      for (const reservation of reservations) {
        const task = this.handle(reservation).finally(() => lane.inFlight.delete(task));
        lane.inFlight.add(task);
      }
      // One event-loop turn before the next reserve: handlers that are done by then have their acks carried
      // on it, instead of a reserve going out now and their acks in a request of their own after it.
      if (reservations.length) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Waits for `until`, or for close(). */
  private pause(lane: Lane, until: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      lane.wake = resolve;
      until.then(
        () => resolve(),
        () => resolve(),
      );
    });
  }

  private async handle(reservation: WireReservation): Promise<void> {
    const { job } = reservation;
    const token = reservation.token;
    const lost = new AbortController();
    let touchTimer: NodeJS.Timeout | undefined;
    let deadlineAt = reservation.deadlineAt;

    const touch = async (ttrMs?: number): Promise<void> => {
      const touched = await this.client.touch(job.id, token, ttrMs ?? this.ttrMs);
      if (touched.deadlineAt !== null) deadlineAt = touched.deadlineAt;
    };
    const scheduleTouch = (): void => {
      if (!this.autoTouch) return;
      const inMs = Math.max(50, Math.floor((deadlineAt - Date.now()) / 2));
      touchTimer = setTimeout(() => {
        touch().then(scheduleTouch, (err: unknown) => {
          this.onError(err, job);
          if (isDelayqError(err) && err.code !== 'E_STORE_UNAVAILABLE') lost.abort(err);
          else scheduleTouch();
        });
      }, inMs);
      touchTimer.unref();
    };

    const handler = this.handlers[job.topic];
    scheduleTouch();
    let failure: unknown;
    let failed = false;
    try {
      if (!handler) throw new Error(`no handler for topic ${job.topic}`);
      await handler(job, { token, attempt: job.attempts, signal: lost.signal, touch });
    } catch (err) {
      failed = true;
      failure = err;
    } finally {
      clearTimeout(touchTimer);
    }
    this.processedCount++;
    if (lost.signal.aborted) return; // the job belongs to another delivery now; nothing to report
    const settled = this.acks
      .add(failed ? { id: job.id, token, op: 'fail', error: describe(failure) } : { id: job.id, token, op: 'finish' })
      .then(
        (result) => this.reportRefused(result, job),
        (err: unknown) => this.onError(err, job),
      );
    const tracked = settled.finally(() => this.settling.delete(tracked));
    this.settling.add(tracked);
  }

  private reportRefused(result: AckResult, job: WireJob): void {
    if (result.ok) return;
    const { code, message, field } = result.error;
    this.onError(new DelayqError(code as ErrorCode, message, { field }), job);
  }
}

/** Longest wait of a reserve carrying acks: close() waits for it, as dropping it would lose their results. */
const CARRYING_WAIT_MS = 1000;

/** A reserve loop and the slots it owns. */
interface Lane {
  readonly slots: number;
  readonly inFlight: Set<Promise<void>>;
  /** The lane's pending reserve call, aborted by close(). */
  poll?: AbortController | undefined;
  /** Ends the lane's wait for a free slot or a backoff (close()). */
  wake?: () => void;
}

const newLane = (slots: number): Lane => ({ slots, inFlight: new Set() });

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
