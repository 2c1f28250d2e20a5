import type { EpochMs } from '../../core/clock.js';
import { pushedJob, type NewJob } from '../../core/job.js';
import type { PushResult } from '../store.js';
import { recordToJob } from './job-record.js';
import { PartitionBatcher } from './partition-batcher.js';
import { JOBS_PER_BUCKET, pushArgs, type PushArgsEntry } from './push-args.js';
import { decodeRecord } from './record-codec.js';
import { RECORD_LAYOUT } from './record-layout.js';
import type { PartitionAccess } from './redis-reads.js';

/**
 * RedisStore's producers' side: the pushes of one event-loop turn go out as one push.lua call per partition
 * (PartitionBatcher), and peers hear of new ready jobs and earlier due times.
 */
export class RedisPusher {
  private readonly batcher: PartitionBatcher<PushArgsEntry>;
  /** The next bucket hash a push takes (push-args.ts); a random start, so processes do not move in step. */
  private bucketSlot = Math.floor(Math.random() * 0x40000000);

  private readonly store: PartitionAccess;
  private readonly delayBuckets: number;
  private readonly madeDue: (at: EpochMs) => void;

  constructor(store: PartitionAccess, delayBuckets: number, madeDue: (at: EpochMs) => void) {
    this.store = store;
    this.delayBuckets = delayBuckets;
    this.madeDue = madeDue;
    this.batcher = new PartitionBatcher((p, items) => this.pushPartition(p, items));
  }

  async pushMany(jobs: readonly NewJob[], now: EpochMs): Promise<PushResult[]> {
    const { store } = this;
    const partitions: number[] = [];
    const entries: PushArgsEntry[] = [];
    for (const job of jobs) {
      partitions.push(store.part(job.id));
      entries.push({ job, now });
    }
    // One promise for the call, not one per job: a restore pushes thousands at once.
    const replies = await this.batcher.addMany(partitions, entries);
    const results: PushResult[] = [];
    let readyTopics: Set<string> | undefined;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      const reply = replies[i];
      if (reply === 1) {
        const created = pushedJob(job, now);
        if (created.state === 'ready') (readyTopics ??= new Set()).add(job.topic);
        results.push({ created: true, job: created });
      } else results.push({ created: false, job: recordToJob(job.id, decodeRecord(reply as Buffer)) });
    }
    if (readyTopics) store.madeReady(readyTopics);
    return results;
  }

  private async pushPartition(partition: number, entries: PushArgsEntry[]): Promise<unknown[]> {
    const args = pushArgs(entries, this.store.nodeIndex(partition), this.bucketSlot);
    this.bucketSlot = (this.bucketSlot + Math.ceil(entries.length / JOBS_PER_BUCKET)) % 0x40000000;
    const [newHeadAt, ...replies] = (await this.store.run(
      'push',
      partition,
      [this.delayBuckets, ...args, RECORD_LAYOUT],
      true,
    )) as [number | null, ...unknown[]];
    if (newHeadAt !== null) this.madeDue(Number(newHeadAt));
    return replies;
  }
}
