import { Packr } from 'msgpackr';
import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';
import { encodeRetry } from './job-record.js';

/**
 * Plain msgpack that Redis's cmsgpack reads: arrays only (no msgpackr records/structures extension).
 * Integers beyond 32 bits come out as float64, which cmsgpack reads back exactly.
 */
const packr = new Packr({ useRecords: false });

export interface PushArgsEntry {
  job: NewJob;
  now: EpochMs;
}

/**
 * A new job's record, packed here instead of in push.lua (cmsgpack.pack per job was most of the script's
 * time). Layout and field positions: see push.lua's header; null is msgpack false, never nil, because
 * cmsgpack.unpack turns nil into holes that end a Lua array. The last field is the bucket placeholder 0
 * (one byte, 0x00) that push.lua replaces with the bucket it chooses.
 */
export function packNewRecord(job: NewJob, now: EpochMs, node: number): Buffer {
  const ready = job.runAt <= now;
  const state = ready ? 2 : 1;
  return packr.pack([
    job.topic,
    job.tag ?? false,
    job.bizKey ?? false,
    job.body,
    state,
    job.runAt,
    job.priority,
    job.ttrMs,
    job.ttlMs ?? false,
    encodeRetry(job.retry),
    0,
    false,
    false,
    false,
    now,
    ready ? now : false,
    false,
    false,
    [[0, 1, state, 0, node, false]],
    0,
  ]);
}

/**
 * push.lua's ARGV[3] and ARGV[4] for one batch: two arguments whatever the batch size, where one string
 * per field used to cost ioredis a UTF-8 write and Redis an argument each (12 a job).
 */
export function pushArgs(entries: readonly PushArgsEntry[], node: number, bucketHash: (id: string) => number): [Buffer, Buffer] {
  const meta: unknown[] = [];
  const records: Buffer[] = [];
  let bytes = 0;
  for (const { job, now } of entries) {
    const record = packNewRecord(job, now, node);
    records.push(record);
    bytes += record.length;
    const ready = job.runAt <= now;
    meta.push(job.id, job.topic, job.runAt, bucketHash(job.id), ready ? job.priority : false, ready ? (job.ttlMs ?? false) : false, record.length);
  }
  return [packr.pack(meta), Buffer.concat(records, bytes)];
}
