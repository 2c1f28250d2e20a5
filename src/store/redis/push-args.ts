import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';
import { arrayBytes, intBytes, strBytes, writeArray, writeFalse, writeInt, writeStr } from './msgpack-write.js';
import { planRecord, writeNewRecord, type RecordPlan } from './record-codec.js';

export interface PushArgsEntry {
  job: NewJob;
  now: EpochMs;
}

/** push.lua's values per job in ARGV[3]: id, topic, runAt, slot, priority, ttl, record length, bizKey, tag. */
export const PUSH_META_FIELDS = 9;

/** Consecutive jobs of a call that share a bucket hash: one multi-member ZADD instead of eight. */
export const JOBS_PER_BUCKET = 8;

/**
 * push.lua's ARGV[3] and ARGV[4] for one batch: two arguments whatever the batch size, so neither ioredis
 * nor Redis handles an argument per field. ARGV[3] is a msgpack
 * array of PUSH_META_FIELDS values a job; ARGV[4] the records back to back. Job i gets bucket hash
 * `firstSlot + i / JOBS_PER_BUCKET`: a job's bucket is stored in its record, so it need not follow from
 * the id, and slots taken in turn fill the buckets evenly.
 */
export function pushArgs(entries: readonly PushArgsEntry[], node: number, firstSlot: number): [Buffer, Buffer] {
  const plans: RecordPlan[] = [];
  const idBytes: number[] = [];
  let recordBytes = 0;
  let metaBytes = arrayBytes(PUSH_META_FIELDS * entries.length);
  for (const { job, now } of entries) {
    const plan = planRecord(job, now);
    plans.push(plan);
    recordBytes += plan.size;
    const bytes = Buffer.byteLength(job.id);
    idBytes.push(bytes);
    // id, topic, runAt, slot (≤ 5), priority or false (≤ 3), ttl or false, record length (≤ 5), bizKey
    // and tag (or false: the label indexes of list.lua)
    metaBytes +=
      strBytes(bytes) + strBytes(plan.topicBytes) + intBytes(job.runAt) + 5 + 3 + intBytes(job.ttlMs ?? 0) + 5;
    metaBytes += labelBytes(job.bizKey) + labelBytes(job.tag);
  }
  const meta = Buffer.allocUnsafe(metaBytes);
  const records = Buffer.allocUnsafe(recordBytes);
  let m = writeArray(meta, 0, PUSH_META_FIELDS * entries.length);
  let r = 0;
  for (let i = 0; i < entries.length; i++) {
    const { job, now } = entries[i]!;
    const plan = plans[i]!;
    r = writeNewRecord(records, r, job, now, node, plan);
    const ready = job.runAt <= now;
    m = writeStr(meta, m, job.id, idBytes[i]!);
    m = writeStr(meta, m, plan.topicField, plan.topicBytes);
    m = writeInt(meta, m, job.runAt);
    m = writeInt(meta, m, (firstSlot + Math.floor(i / JOBS_PER_BUCKET)) % 0x40000000);
    m = ready ? writeInt(meta, m, job.priority) : writeFalse(meta, m);
    m = ready && job.ttlMs != null ? writeInt(meta, m, job.ttlMs) : writeFalse(meta, m);
    m = writeInt(meta, m, plan.size);
    m = writeLabel(meta, m, job.bizKey);
    m = writeLabel(meta, m, job.tag);
  }
  return [meta.subarray(0, m), records];
}

/** An empty bizKey or tag is none: it is not indexed. */
function labelBytes(label: string | null): number {
  return label ? strBytes(Buffer.byteLength(label)) : 1;
}

function writeLabel(buf: Buffer, at: number, label: string | null): number {
  return label ? writeStr(buf, at, label, Buffer.byteLength(label)) : writeFalse(buf, at);
}
