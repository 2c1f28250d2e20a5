import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';

export interface PushEntry {
  job: NewJob;
  now: EpochMs;
  resolve(reply: unknown): void;
  reject(err: unknown): void;
}

/**
 * Groups concurrent pushes: every push made during one event-loop turn is sent as one script call per
 * partition (at most `maxJobs` jobs each), instead of one EVALSHA per request. The pending set is bounded
 * by the callers' own concurrency; nothing is buffered across a failed call (its entries are rejected).
 */
export class PushBatcher {
  private pending = new Map<number, PushEntry[]>();
  private scheduled = false;
  private readonly send: (partition: number, entries: PushEntry[]) => Promise<unknown[]>;
  private readonly maxJobs: number;

  constructor(send: (partition: number, entries: PushEntry[]) => Promise<unknown[]>, maxJobs = 256) {
    this.send = send;
    this.maxJobs = maxJobs;
  }

  /** Resolves with the script's per-job reply (1 = created, else the existing record). */
  add(partition: number, job: NewJob, now: EpochMs): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let list = this.pending.get(partition);
      if (!list) this.pending.set(partition, (list = []));
      list.push({ job, now, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batches = this.pending;
    this.pending = new Map();
    for (const [partition, entries] of batches) {
      for (let i = 0; i < entries.length; i += this.maxJobs) {
        const chunk = entries.slice(i, i + this.maxJobs);
        this.send(partition, chunk).then(
          (replies) => chunk.forEach((e, k) => e.resolve(replies[k])),
          (err: unknown) => chunk.forEach((e) => e.reject(err)),
        );
      }
    }
  }
}
