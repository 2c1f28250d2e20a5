import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';
import { encodeRetry } from './job-record.js';
import { arrayBytes, intBytes, strBytes, writeArray, writeFalse, writeInt, writeStr } from './msgpack-write.js';
import { ENTRY_BYTES, FLAG, HEAD_BYTES } from './packed-record.js';

export interface PushArgsEntry {
  job: NewJob;
  now: EpochMs;
}

/** What packing one new record needs to know first: its size and the byte lengths inside it. */
interface RecordPlan {
  retry: string;
  tagBytes: number;
  bizKeyBytes: number;
  bodyBytes: number;
  topicBytes: number;
  size: number;
}

function planRecord(job: NewJob, now: EpochMs): RecordPlan {
  const retry = encodeRetry(job.retry);
  const tagBytes = job.tag == null ? 0 : Buffer.byteLength(job.tag);
  const bizKeyBytes = job.bizKey == null ? 0 : Buffer.byteLength(job.bizKey);
  const bodyBytes = Buffer.byteLength(job.body);
  const topicBytes = Buffer.byteLength(job.topic);
  if (topicBytes > 255) throw new RangeError(`topic of ${topicBytes} bytes: the record holds at most 255`);
  const optional = (job.ttlMs != null ? 6 : 0) + (job.runAt <= now ? 6 : 0);
  const body =
    1 +
    (job.tag == null ? 1 : strBytes(tagBytes)) +
    (job.bizKey == null ? 1 : strBytes(bizKeyBytes)) +
    strBytes(bodyBytes) +
    strBytes(retry.length);
  return {
    retry,
    tagBytes,
    bizKeyBytes,
    bodyBytes,
    topicBytes,
    size: HEAD_BYTES + optional + 1 + topicBytes + body + ENTRY_BYTES,
  };
}

/**
 * Writes a new job's record (layout: lua/record.lua) at `pos`: the head (state, times; bucket 0, which
 * push.lua replaces with the bucket it chooses), the topic, the msgpack body {tag, bizKey, body, retry}
 * (null as false) and the push entry of the history. Packed here, not in push.lua; the body's values are
 * strings or false, written in place (msgpackr's pack and the copy of its output were a tenth of a push's
 * CPU in this process). Returns where the record ends.
 */
function writeNewRecord(b: Buffer, pos: number, job: NewJob, now: EpochMs, node: number, plan: RecordPlan): number {
  const ready = job.runAt <= now;
  const state = ready ? 2 : 1;
  const ttl = job.ttlMs ?? null;
  b[pos] = state | (ttl !== null ? FLAG.ttl : 0) | (ready ? FLAG.readyAt : 0);
  b.writeUInt16BE(0, pos + 1); // attempts
  b.writeInt16BE(job.priority, pos + 3);
  b.writeUInt32BE(job.ttrMs, pos + 5);
  b.writeIntBE(now, pos + 9, 6); // createdAt
  b.writeIntBE(job.runAt, pos + 15, 6);
  b.writeUIntBE(0, pos + 21, 3); // bucket: push.lua's
  pos += HEAD_BYTES;
  if (ttl !== null) pos = b.writeIntBE(ttl, pos, 6);
  if (ready) pos = b.writeIntBE(now, pos, 6); // readyAt
  b[pos++] = plan.topicBytes;
  pos += b.write(job.topic, pos, 'utf8');
  pos = writeArray(b, pos, 4);
  pos = job.tag == null ? writeFalse(b, pos) : writeStr(b, pos, job.tag, plan.tagBytes);
  pos = job.bizKey == null ? writeFalse(b, pos) : writeStr(b, pos, job.bizKey, plan.bizKeyBytes);
  pos = writeStr(b, pos, job.body, plan.bodyBytes);
  pos = writeStr(b, pos, plan.retry, plan.retry.length); // ASCII
  pos = b.writeIntBE(now, pos, 6); // the push entry: event 1
  b[pos++] = 8 + state;
  pos = b.writeUInt16BE(0, pos);
  return b.writeUIntBE(node, pos, 3);
}

/** One new job's record on its own (push.lua's input is pushArgs's; this is for tests and tools). */
export function packNewRecord(job: NewJob, now: EpochMs, node: number): Buffer {
  const plan = planRecord(job, now);
  const b = Buffer.allocUnsafe(plan.size);
  writeNewRecord(b, 0, job, now, node, plan);
  return b;
}

/** Consecutive jobs of a call that share a bucket hash: one multi-member ZADD instead of eight. */
export const JOBS_PER_BUCKET = 8;

/**
 * push.lua's ARGV[3] and ARGV[4] for one batch: two arguments whatever the batch size, where one string
 * per field used to cost ioredis a UTF-8 write and Redis an argument each (12 a job). ARGV[3] is a msgpack
 * array of 7 values a job; ARGV[4] the records back to back. Job i gets bucket hash
 * `firstSlot + i / JOBS_PER_BUCKET`: a job's bucket is stored in its record, so it need not follow from
 * the id, and slots taken in turn fill the buckets evenly.
 */
export function pushArgs(entries: readonly PushArgsEntry[], node: number, firstSlot: number): [Buffer, Buffer] {
  const plans: RecordPlan[] = [];
  const idBytes: number[] = [];
  let recordBytes = 0;
  let metaBytes = arrayBytes(7 * entries.length);
  for (const { job, now } of entries) {
    const plan = planRecord(job, now);
    plans.push(plan);
    recordBytes += plan.size;
    const bytes = Buffer.byteLength(job.id);
    idBytes.push(bytes);
    // id, topic, runAt, slot (≤ 5), priority or false (≤ 3), ttl or false, record length (≤ 5)
    metaBytes +=
      strBytes(bytes) + strBytes(plan.topicBytes) + intBytes(job.runAt) + 5 + 3 + intBytes(job.ttlMs ?? 0) + 5;
  }
  const meta = Buffer.allocUnsafe(metaBytes);
  const records = Buffer.allocUnsafe(recordBytes);
  let m = writeArray(meta, 0, 7 * entries.length);
  let r = 0;
  for (let i = 0; i < entries.length; i++) {
    const { job, now } = entries[i]!;
    const plan = plans[i]!;
    r = writeNewRecord(records, r, job, now, node, plan);
    const ready = job.runAt <= now;
    m = writeStr(meta, m, job.id, idBytes[i]!);
    m = writeStr(meta, m, job.topic, plan.topicBytes);
    m = writeInt(meta, m, job.runAt);
    m = writeInt(meta, m, (firstSlot + Math.floor(i / JOBS_PER_BUCKET)) % 0x40000000);
    m = ready ? writeInt(meta, m, job.priority) : writeFalse(meta, m);
    m = ready && job.ttlMs != null ? writeInt(meta, m, job.ttlMs) : writeFalse(meta, m);
    m = writeInt(meta, m, plan.size);
  }
  return [meta.subarray(0, m), records];
}
