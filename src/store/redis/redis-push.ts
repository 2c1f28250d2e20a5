import type { EpochMs } from '../../core/clock.js';
import { pushedJob, type NewJob } from '../../core/job.js';
import type { PushResult } from '../store.js';
import { OUTCOME_CODES } from '../outcome-codes.js';
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
    await this.upsertTaken(jobs, results, now);
    return results;
  }

  /**
   * The pushes with an onExists rule whose id was taken, through upsert.lua: the calls for one id one after
   * the other, in the order pushed (each sees the one before), the ids side by side, so a debounce storm's
   * batch costs about one round trip (ioredis pipelines the calls) rather than one per push.
   */
  private async upsertTaken(jobs: readonly NewJob[], results: PushResult[], now: EpochMs): Promise<void> {
    let byId: Map<string, number[]> | undefined;
    for (let i = 0; i < jobs.length; i++) {
      if (!jobs[i]!.onExists || results[i]!.created) continue;
      byId ??= new Map();
      const same = byId.get(jobs[i]!.id);
      if (same) same.push(i);
      else byId.set(jobs[i]!.id, [i]);
    }
    if (!byId) return;
    await Promise.all(
      [...byId.values()].map(async (indexes) => {
        for (const i of indexes) results[i] = await this.upsert(jobs[i]!, now, results[i]!);
      }),
    );
  }

  /**
   * A push with an onExists rule whose id push.lua found taken: upsert.lua applies the rule to that job if it
   * still waits. A job gone between the two calls (purged) is pushed again.
   */
  private async upsert(job: NewJob, now: EpochMs, found: PushResult): Promise<PushResult> {
    const rule = job.onExists!;
    const { state } = found.job;
    if (found.job.topic !== job.topic || (state !== 'delayed' && state !== 'ready')) return found;
    const p = this.store.part(job.id);
    const maxWaitMs = rule.mode === 'extend' && rule.maxWaitMs !== null ? rule.maxWaitMs : -1;
    const body = rule.mode === 'replace' ? job.body : '';
    const args = [job.id, job.topic, rule.mode, job.runAt, maxWaitMs, job.priority, body, now, this.store.nodeIndex(p)];
    const [code, record] = (await this.store.run('upsert', p, args, true)) as [number, Buffer | undefined];
    if (code === OUTCOME_CODES.notFound) return (await this.pushMany([job], now))[0]!;
    const stored = recordToJob(job.id, decodeRecord(record!));
    if (code !== OUTCOME_CODES.ok) return { created: false, job: stored };
    if (stored.state === 'ready') this.store.madeReady([stored.topic]);
    else this.madeDue(stored.runAt);
    return { created: false, job: stored, change: rule.mode === 'replace' ? 'replaced' : 'extended' };
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
