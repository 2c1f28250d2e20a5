/**
 * service.events (CONTRACTS item 5): what happened to jobs, for metrics, live views and the console.
 * Listeners run synchronously inside the store call's continuation: keep them cheap, never throw.
 *  - 'job': one transition (or a batch of one kind in one topic, with `count`);
 *  - 'storeCall': one store method call and how long it took (ok = it did not throw);
 *  - 'reserveWait': how long a reserve call waited (long-poll) and whether it got jobs.
 */
import { EventEmitter } from 'node:events';
import type { EpochMs } from '../core/clock.js';
import type { HistoryEvent } from '../core/job.js';

/** The topic of an event whose store call did not say which topic (expire; a multi-topic Redis promote batch). */
export const UNKNOWN_TOPIC = '*';

/** One transition, named as in the job's history (core/job.ts HISTORY_EVENTS). */
export interface ServiceJobEvent {
  event: HistoryEvent;
  /** The job's topic, or UNKNOWN_TOPIC. */
  topic: string;
  /** Present when the event is about one job. */
  id?: string;
  /** Jobs this event stands for; absent means 1. */
  count?: number;
  /** When it happened (the service clock). */
  at: EpochMs;
  /** The job's due time (runAt): on push, reserve and retry. */
  dueAt?: EpochMs;
  /** On reserve: when the job became ready (readyAt − dueAt is its promote lateness). */
  readyAt?: EpochMs | null;
  /** retry and bury: the job's lastError; cancel: the reason given. */
  error?: string | null;
}

export interface StoreCallEvent {
  operation: string;
  durationMs: number;
  ok: boolean;
}

export interface ReserveWaitEvent {
  waitedMs: number;
  /** Jobs the call returned (0: the wait timed out or was cut short). */
  count: number;
}

export interface ServiceEventMap {
  job: [ServiceJobEvent];
  storeCall: [StoreCallEvent];
  reserveWait: [ReserveWaitEvent];
}

/** The typed emitter; listeners on 'job' are counted so emitters can skip building events nobody reads. */
export class ServiceEvents extends EventEmitter<ServiceEventMap> {
  constructor() {
    super({ captureRejections: false });
    this.setMaxListeners(50);
  }

  /** Emits a job event unless nobody listens; a throwing listener must not break the store call. */
  job(event: ServiceJobEvent): void {
    if (this.listenerCount('job') === 0) return;
    try {
      this.emit('job', event);
    } catch {
      /* a listener's bug is not the caller's failure */
    }
  }
}
