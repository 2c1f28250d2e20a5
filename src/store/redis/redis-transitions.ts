import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import type { Job } from '../../core/job.js';
import { withDispatched } from '../cancelled.js';
import { OUTCOME_CODES, refusal } from '../outcome-codes.js';
import {
  ok,
  repeatedOk,
  RUN_NOW_REASON,
  type BuryParams,
  type CancelledJob,
  type CancelParams,
  type Outcome,
  type ReleaseParams,
  type RetryParams,
  type Store,
} from '../store.js';
import { nul, recordToJob } from './job-record.js';
import { PartitionBatcher } from './partition-batcher.js';
import { decodeRecord } from './record-codec.js';
import { STATE_CODE, stateOf } from './record-layout.js';
import type { PartitionAccess } from './redis-reads.js';
import type { ScriptName } from './scripts.js';
import type { WakeBus } from './wake-bus.js';

interface FinishItem {
  id: string;
  token: string;
  now: EpochMs;
}

interface CancelItem {
  id: string;
  now: EpochMs;
  reason: string | undefined;
}

/**
 * The transitions of one job by id (cancel, reschedule, run now, and the settling of a reservation): a script
 * on the job's partition each, finishes and cancels batched per partition, and the wake-ups they owe other
 * processes.
 */
export class RedisTransitions {
  private readonly finishes: PartitionBatcher<FinishItem>;
  private readonly cancels: PartitionBatcher<CancelItem>;
  private readonly access: PartitionAccess;
  private readonly bus: WakeBus;
  private readonly isOpen: () => boolean;

  constructor(access: PartitionAccess, bus: WakeBus, isOpen: () => boolean) {
    this.access = access;
    this.bus = bus;
    this.isOpen = isOpen;
    this.finishes = new PartitionBatcher((p, items) => this.finishPartition(p, items));
    this.cancels = new PartitionBatcher((p, items) => this.cancelPartition(p, items));
  }

  /** Maps a single-job script reply ({0, record as stored} or {code, state}) to an Outcome, telling peers of wake-ups. */
  outcome(id: string, reply: unknown): Outcome<Job> {
    const [code, payload] = reply as [number, unknown];
    if (code < OUTCOME_CODES.ok)
      return refusal(code, payload === null || payload === undefined ? undefined : stateOf(Number(payload)));
    const job = recordToJob(id, decodeRecord(payload as Buffer));
    // A job of a group out of `reserved` frees a place in its group: peers waiting on its topic try again.
    if (job.state === 'ready' || (job.group !== undefined && job.state !== 'reserved')) this.bus.ready([job.topic]);
    if (job.state === 'delayed') this.bus.due(job.runAt);
    return code === OUTCOME_CODES.repeated ? repeatedOk(job) : ok(job);
  }

  private node(id: string): number {
    return this.access.nodeIndex(this.access.part(id));
  }

  private fenced(name: ScriptName, id: string, args: (string | number)[]): Promise<Outcome<Job>> {
    return this.access.run(name, this.access.part(id), [id, ...args], true).then((reply) => this.outcome(id, reply));
  }

  /** Batched as finishes are: a bulk cancel's chunk, or plain clients' concurrent cancels, share a call per partition. */
  async cancel(id: string, now: EpochMs, params: CancelParams = {}): Promise<Outcome<CancelledJob>> {
    if (!this.isOpen()) throw new DelayqError('E_STORE_UNAVAILABLE', 'the Redis store is not open');
    const reply = (await this.cancels.add(this.access.part(id), { id, now, reason: params.reason })) as unknown[];
    return withDispatched(this.outcome(id, reply), reply[2] === STATE_CODE.reserved);
  }

  private async cancelPartition(partition: number, items: CancelItem[]): Promise<unknown[]> {
    const args: (string | number)[] = [this.access.nodeIndex(partition)];
    for (const { id, now, reason } of items) args.push(id, now, nul(reason));
    return (await this.access.run('cancel', partition, args, true)) as unknown[];
  }

  reschedule(id: string, runAt: EpochMs, now: EpochMs): Promise<Outcome<Job>> {
    return this.fenced('reschedule', id, [runAt, now, this.node(id)]);
  }

  runNow(id: string, now: EpochMs): Promise<Outcome<Job>> {
    return this.fenced('run-now', id, [now, this.node(id), RUN_NOW_REASON]);
  }

  restoreReservation: Store['restoreReservation'] = (id, kept, now, replacing) =>
    this.fenced('restore-reservation', id, [
      now,
      kept.token,
      kept.reservedAt,
      kept.deadlineAt,
      kept.attempts,
      this.node(id),
      kept.runAt,
      replacing ?? '',
    ]);

  touch(id: string, token: string, now: EpochMs, ttrMs?: number): Promise<Outcome<Job>> {
    return this.fenced('touch', id, [token, now, ttrMs ?? '']);
  }

  /** Batched: the finishes of one event-loop turn share one script call per partition. */
  finish(id: string, token: string, now: EpochMs): Promise<Outcome<Job>> {
    if (!this.isOpen()) return Promise.reject(new DelayqError('E_STORE_UNAVAILABLE', 'the Redis store is not open'));
    return this.finishes.add(this.access.part(id), { id, token, now }).then((reply) => this.outcome(id, reply));
  }

  private async finishPartition(partition: number, items: FinishItem[]): Promise<unknown[]> {
    const args: (string | number)[] = [this.access.nodeIndex(partition)];
    for (const { id, token, now } of items) args.push(id, token, now);
    return (await this.access.run('finish', partition, args, true)) as unknown[];
  }

  retry(id: string, token: string, now: EpochMs, { runAt, error }: RetryParams): Promise<Outcome<Job>> {
    return this.fenced('retry', id, [token, runAt, now, this.node(id), nul(error)]);
  }

  bury(id: string, token: string, now: EpochMs, { error, priority }: BuryParams): Promise<Outcome<Job>> {
    return this.fenced('bury', id, [token, now, this.node(id), nul(error), priority ?? '']);
  }

  release(
    id: string,
    token: string,
    now: EpochMs,
    { runAt, priority, reason }: ReleaseParams = {},
  ): Promise<Outcome<Job>> {
    return this.fenced('release', id, [token, now, this.node(id), runAt ?? '', priority ?? '', reason ?? '']);
  }
}
