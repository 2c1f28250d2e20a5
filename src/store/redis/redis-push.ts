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

/** Upserts a script call applies at most: bounds the time one call holds Redis. */
const UPSERTS_A_CALL = 100;

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
    // A wave's pushes topic by topic: a call then holds few topics, each paying its script work once.
    this.batcher = new PartitionBatcher((p, items) => this.pushPartition(p, items), {
      grouping: { groupOf: (e) => e.job.topic, keyOf: (e) => e.job.id },
    });
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
   * The pushes with an onExists rule whose id was taken: upsert.lua applies each rule to the job if it still
   * waits, one call per partition for the batch (upserts of one partition chunked as pushes are), the pushes
   * in the order made, so each sees the one before. A job gone between the two calls (purged) is pushed again.
   */
  private async upsertTaken(jobs: readonly NewJob[], results: PushResult[], now: EpochMs): Promise<void> {
    let byPart: Map<number, number[]> | undefined;
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      const found = results[i]!;
      if (!job.onExists || found.created) continue;
      // Kept without a call: another topic's id, or a job reserved or ended (upsert.lua would say so too).
      if (found.job.topic !== job.topic || (found.job.state !== 'delayed' && found.job.state !== 'ready')) continue;
      byPart ??= new Map();
      const p = this.store.part(job.id);
      const list = byPart.get(p);
      if (list) list.push(i);
      else byPart.set(p, [i]);
    }
    if (!byPart) return;
    const gone: number[] = [];
    const calls: Promise<void>[] = [];
    for (const [p, indexes] of byPart) {
      for (let at = 0; at < indexes.length; at += UPSERTS_A_CALL) {
        calls.push(this.upsertPartition(p, jobs, indexes.slice(at, at + UPSERTS_A_CALL), results, now, gone));
      }
    }
    await Promise.all(calls);
    gone.sort((a, b) => a - b);
    for (const i of gone) results[i] = (await this.pushMany([jobs[i]!], now))[0]!;
  }

  private async upsertPartition(
    p: number,
    jobs: readonly NewJob[],
    indexes: readonly number[],
    results: PushResult[],
    now: EpochMs,
    gone: number[],
  ): Promise<void> {
    const args: (string | number)[] = [now, this.store.nodeIndex(p)];
    for (const i of indexes) {
      const job = jobs[i]!;
      const rule = job.onExists!;
      const maxWaitMs = rule.mode === 'extend' && rule.maxWaitMs !== null ? rule.maxWaitMs : -1;
      args.push(
        job.id,
        job.topic,
        rule.mode,
        job.runAt,
        maxWaitMs,
        job.priority,
        rule.mode === 'replace' ? job.body : '',
      );
    }
    const replies = (await this.store.run('upsert', p, args, true)) as (number | Buffer | null)[];
    let readyTopics: Set<string> | undefined;
    indexes.forEach((i, k) => {
      const code = replies[2 * k] as number;
      const record = replies[2 * k + 1] as Buffer | null;
      if (code === OUTCOME_CODES.notFound) {
        gone.push(i);
        return;
      }
      const stored = recordToJob(jobs[i]!.id, decodeRecord(record!));
      if (code !== OUTCOME_CODES.ok) {
        results[i] = { created: false, job: stored };
        return;
      }
      if (stored.state === 'ready') (readyTopics ??= new Set()).add(stored.topic);
      else this.madeDue(stored.runAt);
      results[i] = {
        created: false,
        job: stored,
        change: jobs[i]!.onExists!.mode === 'replace' ? 'replaced' : 'extended',
      };
    });
    if (readyTopics) this.store.madeReady(readyTopics);
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
