import type { EpochMs } from '../../core/clock.js';
import type { NewJob } from '../../core/job.js';
import { encodeRetry } from './job-record.js';
import { bodyPackr, ENTRY_BYTES, FLAG, HEAD_BYTES } from './packed-record.js';

export interface PushArgsEntry {
  job: NewJob;
  now: EpochMs;
}

/**
 * A new job's record (layout: lua/record.lua), packed here instead of in push.lua: the head (state,
 * times; bucket 0, which push.lua replaces with the bucket it chooses), the topic, the msgpack body
 * {tag, bizKey, body, retry} (null as false) and the push entry of the history.
 */
export function packNewRecord(job: NewJob, now: EpochMs, node: number): Buffer {
  const ready = job.runAt <= now;
  const state = ready ? 2 : 1;
  const body = bodyPackr.pack([job.tag ?? false, job.bizKey ?? false, job.body, encodeRetry(job.retry)]);
  const topicLength = Buffer.byteLength(job.topic);
  if (topicLength > 255) throw new RangeError(`topic of ${topicLength} bytes: the record holds at most 255`);
  const ttl = job.ttlMs ?? null;
  const optional = (ttl !== null ? 6 : 0) + (ready ? 6 : 0);
  const b = Buffer.allocUnsafe(HEAD_BYTES + optional + 1 + topicLength + body.length + ENTRY_BYTES);
  b[0] = state | (ttl !== null ? FLAG.ttl : 0) | (ready ? FLAG.readyAt : 0);
  b.writeUInt16BE(0, 1); // attempts
  b.writeInt16BE(job.priority, 3);
  b.writeUInt32BE(job.ttrMs, 5);
  b.writeIntBE(now, 9, 6); // createdAt
  b.writeIntBE(job.runAt, 15, 6);
  b.writeUIntBE(0, 21, 3); // bucket: push.lua's
  let pos = HEAD_BYTES;
  if (ttl !== null) pos = b.writeIntBE(ttl, pos, 6);
  if (ready) pos = b.writeIntBE(now, pos, 6); // readyAt
  b[pos++] = topicLength;
  pos += b.write(job.topic, pos, 'utf8');
  pos += body.copy(b, pos);
  pos = b.writeIntBE(now, pos, 6); // the push entry: event 1
  b[pos++] = 8 + state;
  pos = b.writeUInt16BE(0, pos);
  b.writeUIntBE(node, pos, 3);
  return b;
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
  return [bodyPackr.pack(meta), Buffer.concat(records, bytes)];
}
