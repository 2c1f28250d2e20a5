/**
 * Single pushes (one job per request, as plain HTTP clients, gRPC and the compat routes send them) grouped per
 * event-loop turn into one store pushMany (turn-batch.ts), so concurrent requests share one store call whatever
 * client sent them. Each caller keeps its own answer: its job created or existing (changed by its onExists rule or
 * not; an id pushed twice in one group answers the second as existing, as two calls in a row would), or its own
 * E_CONFLICT naming `id`.
 * Validation happens before a job joins a group, so a bad job is refused alone.
 */
import type { EpochMs } from '../core/clock.js';
import type { Job, NewJob } from '../core/job.js';
import { LIMITS } from '../core/limits.js';
import type { PushResult, Store } from '../store/store.js';
import { refuseIdConflicts } from './id-conflict.js';
import { TurnBatch } from './turn-batch.js';

/** What the grouped pushes need of DelayqService. */
export interface SinglePushHost {
  readonly store: Store;
  /** Tells the timer and the waiters about jobs that were just stored or moved (onExists). */
  afterWrite(jobs: readonly Job[]): void;
}

interface QueuedPush {
  job: NewJob;
  /** When the job was validated (its delay counted from then). */
  now: EpochMs;
}

export class SinglePushes {
  private readonly batch: TurnBatch<QueuedPush, PushResult>;

  constructor(host: SinglePushHost) {
    this.batch = new TurnBatch(async (items) => {
      // The latest of the group's times: a job due by its own validation time is stored ready, as alone.
      let now = items[0]!.now;
      for (const item of items) now = Math.max(now, item.now);
      const results = await host.store.pushMany(
        items.map((i) => i.job),
        now,
      );
      host.afterWrite(results.filter((r) => r.created || r.change).map((r) => r.job));
      return results;
    }, LIMITS.pushBatchMax);
  }

  /** Stores one validated job with the others of this turn; its own answer, or its own E_CONFLICT. */
  async push(job: NewJob, now: EpochMs): Promise<PushResult> {
    const result = await this.batch.add({ job, now });
    refuseIdConflicts([job], [result], false);
    return result;
  }
}
