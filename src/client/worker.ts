/**
 * The seeds' "plug-in mode": register a handler per topic and let the Worker run the consumer loop.
 * It long-polls `reserve` for as many jobs as it has free slots, runs each handler, touches the
 * reservation at about half its TTR while the handler runs, finishes the job when the handler resolves
 * and fails it (with the error text) when it throws. `close()` stops reserving, drops the pending
 * long-poll (the server releases anything reserved for it) and waits for the running handlers, whose
 * jobs are still finished or failed.
 */
import { DelayqError, isDelayqError } from '../core/errors.js';
import type { WireJob, WireReservation } from '../protocol/schemas.js';
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
  /** Long-poll wait per reserve call, ms (at most 60 000). @defaultValue 30 000 */
  waitMs?: number;
  /** TTR for the reservations, ms; the jobs' own TTR when absent. */
  ttrMs?: number;
  /** Touch reservations while handlers run, at about half the TTR. @defaultValue true */
  autoTouch?: boolean;
  /** Wait after a failed reserve call before trying again, ms (doubles up to 30 s). @defaultValue 500 */
  errorBackoffMs?: number;
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
  private readonly inFlight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private closing = false;
  private poll: AbortController | undefined;
  private wakeLoop: (() => void) | undefined;
  private processedCount = 0;

  constructor(client: DelayqClient, options: WorkerOptions) {
    this.client = client;
    this.handlers = options.handlers;
    this.topics = Object.keys(options.handlers);
    if (this.topics.length === 0) throw new DelayqError('E_VALIDATION', 'handlers: register at least one topic', { field: 'handlers' });
    this.concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1 || this.concurrency > 100) {
      throw new DelayqError('E_VALIDATION', 'concurrency: must be an integer from 1 to 100', { field: 'concurrency' });
    }
    this.waitMs = options.waitMs ?? 30_000;
    this.ttrMs = options.ttrMs;
    this.autoTouch = options.autoTouch ?? true;
    this.errorBackoffMs = options.errorBackoffMs ?? 500;
    this.onError = options.onError ?? (() => {});
  }

  /** Jobs handled so far (finished or failed). */
  get processed(): number {
    return this.processedCount;
  }

  get running(): number {
    return this.inFlight.size;
  }

  start(): this {
    if (!this.loop && !this.closing) this.loop = this.run();
    return this;
  }

  /** Stops reserving and resolves when every running handler is done and its job finished or failed. */
  async close(): Promise<void> {
    this.closing = true;
    this.poll?.abort();
    this.wakeLoop?.();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.closing) {
      const free = this.concurrency - this.inFlight.size;
      if (free <= 0) {
        await this.pause(Promise.race(this.inFlight));
        continue;
      }
      this.poll = new AbortController();
      let reservations: WireReservation[];
      try {
        reservations = await this.client.reserve(
          { topics: this.topics, count: free, waitMs: this.waitMs, ...(this.ttrMs === undefined ? {} : { ttrMs: this.ttrMs }) },
          { signal: this.poll.signal },
        );
        failures = 0;
      } catch (err) {
        if (this.closing) break;
        this.onError(err);
        failures++;
        const delayMs = Math.min(30_000, this.errorBackoffMs * 2 ** Math.min(failures - 1, 10));
        await this.pause(new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref()));
        continue;
      }
      for (const reservation of reservations) {
        const task = this.handle(reservation).finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
      }
    }
  }

  /** Waits for `until`, or for close(). */
  private pause(until: Promise<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wakeLoop = resolve;
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
    try {
      if (failed) await this.client.fail(job.id, token, { error: describe(failure) });
      else await this.client.finish(job.id, token);
    } catch (err) {
      this.onError(err, job);
    }
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
