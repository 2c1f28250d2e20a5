import type { EpochMs } from '../../core/clock.js';
import type { JobEvent, JobState, NewJob } from '../../core/job.js';
import { encodeRetry } from './retry-text.js';
import { strBytes, writeArray, writeFalse, writeStr } from './msgpack-write.js';
import {
  ENTRY_AT,
  ENTRY_BYTES,
  ENTRY_REASON,
  EVENT_CODE,
  EVENT_MUL,
  eventOf,
  FLAG,
  HEAD_AT,
  HEAD_BYTES,
  STATE_CODE,
  STATE_MASK,
  stateOf,
  TIME_BYTES,
  TOPIC_MAX_BYTES,
} from './record-layout.js';

/** A stored record, decoded (record-layout.ts): null for an absent field. */
export interface StoredRecord {
  state: JobState;
  attempts: number;
  priority: number;
  ttrMs: number;
  createdAt: EpochMs;
  runAt: EpochMs;
  /** The delayed set of its topic the job sits in while delayed (push.lua chooses it). */
  bucket: number;
  ttlMs: number | null;
  readyAt: EpochMs | null;
  reservedAt: EpochMs | null;
  finishedAt: EpochMs | null;
  lastError: string | null;
  /** Only while reserved. */
  deadlineAt: EpochMs | null;
  /** The reservation's token while reserved; the token that finished the job once finished. */
  token: string | null;
  topic: string;
  tag: string | null;
  bizKey: string | null;
  body: string;
  /** The retry policy as retry-text.ts writes it. */
  retry: string;
  /** Decoded only when asked for. */
  history: StoredEntry[] | null;
}

/** One history entry as stored; `node` is the node's index in its partition (nodes hash). */
export interface StoredEntry {
  at: EpochMs;
  event: JobEvent;
  state: JobState;
  attempt: number;
  node: number;
  reason: string | null;
}

const MSGPACK_ARRAY_4 = 0x94;

/** Decodes a record as stored; pure, so records may be decoded in any order or interleaved. */
export function decodeRecord(b: Buffer, withHistory = false): StoredRecord {
  const flags = b[HEAD_AT.flags]!;
  const code = flags & STATE_MASK;
  let pos = HEAD_BYTES;
  // Each optional time is read only when its flag is set, in OPTIONAL_TIMES order.
  const ttlMs = flags & FLAG.ttlMs ? b.readIntBE(pos, TIME_BYTES) : null;
  if (ttlMs !== null) pos += TIME_BYTES;
  const readyAt = flags & FLAG.readyAt ? b.readIntBE(pos, TIME_BYTES) : null;
  if (readyAt !== null) pos += TIME_BYTES;
  const reservedAt = flags & FLAG.reservedAt ? b.readIntBE(pos, TIME_BYTES) : null;
  if (reservedAt !== null) pos += TIME_BYTES;
  const finishedAt = flags & FLAG.finishedAt ? b.readIntBE(pos, TIME_BYTES) : null;
  if (finishedAt !== null) pos += TIME_BYTES;
  let lastError: string | null = null;
  if (flags & FLAG.lastError) {
    const n = b.readUInt32BE(pos);
    lastError = b.toString('utf8', pos + 4, pos + 4 + n);
    pos += 4 + n;
  }
  let deadlineAt: number | null = null;
  let token: string | null = null;
  if (code === STATE_CODE.reserved) {
    deadlineAt = b.readIntBE(pos, TIME_BYTES);
    pos += TIME_BYTES;
  }
  if (code === STATE_CODE.reserved || code === STATE_CODE.finished) {
    const n = b[pos]!;
    token = b.toString('latin1', pos + 1, pos + 1 + n);
    pos += 1 + n;
  }
  const topicLength = b[pos]!;
  const topic = b.toString('utf8', pos + 1, pos + 1 + topicLength);
  pos += 1 + topicLength;
  if (b[pos] !== MSGPACK_ARRAY_4)
    throw new Error(`record body: expected a 4-element msgpack array, found 0x${b[pos]?.toString(16)}`);
  const at = { pos: pos + 1 };
  const tag = readString(b, at);
  const bizKey = readString(b, at);
  const body = readString(b, at) ?? '';
  const retry = readString(b, at) ?? '';
  return {
    state: stateOf(code),
    attempts: b.readUInt16BE(HEAD_AT.attempts),
    priority: b.readInt16BE(HEAD_AT.priority),
    ttrMs: b.readUInt32BE(HEAD_AT.ttrMs),
    createdAt: b.readIntBE(HEAD_AT.createdAt, TIME_BYTES),
    runAt: b.readIntBE(HEAD_AT.runAt, TIME_BYTES),
    bucket: b.readUIntBE(HEAD_AT.bucket, 3),
    ttlMs,
    readyAt,
    reservedAt,
    finishedAt,
    lastError,
    deadlineAt,
    token,
    topic,
    tag,
    bizKey,
    body,
    retry,
    history: withHistory ? readEntries(b, at.pos) : null,
  };
}

/** A msgpack string (fixstr, str8, str16 or str32) or false (null) at `at.pos`, which it moves past it. */
function readString(b: Buffer, at: { pos: number }): string | null {
  const pos = at.pos;
  const type = b[pos]!;
  let start: number;
  let length: number;
  if (type >= 0xa0 && type <= 0xbf) {
    start = pos + 1;
    length = type - 0xa0;
  } else if (type === 0xd9) {
    start = pos + 2;
    length = b[pos + 1]!;
  } else if (type === 0xda) {
    start = pos + 3;
    length = b.readUInt16BE(pos + 1);
  } else if (type === 0xdb) {
    start = pos + 5;
    length = b.readUInt32BE(pos + 1);
  } else if (type === 0xc2) {
    at.pos = pos + 1;
    return null;
  } else throw new Error(`record body: expected a msgpack string or false, found 0x${type.toString(16)}`);
  at.pos = start + length;
  return b.toString('utf8', start, at.pos);
}

function readEntries(b: Buffer, pos: number): StoredEntry[] {
  const entries: StoredEntry[] = [];
  while (pos < b.length) {
    const code = b[pos + ENTRY_AT.code]!;
    const entry: StoredEntry = {
      at: b.readIntBE(pos + ENTRY_AT.at, TIME_BYTES),
      event: eventOf(((code & ~ENTRY_REASON) / EVENT_MUL) | 0),
      state: stateOf(code & STATE_MASK),
      attempt: b.readUInt16BE(pos + ENTRY_AT.attempt),
      node: b.readUIntBE(pos + ENTRY_AT.node, 3),
      reason: null,
    };
    pos += ENTRY_BYTES;
    if (code & ENTRY_REASON) {
      const n = b.readUInt32BE(pos);
      entry.reason = b.toString('utf8', pos + 4, pos + 4 + n);
      pos += 4 + n;
    }
    entries.push(entry);
  }
  return entries;
}

/** What packing one new record needs to know first: its size and the byte lengths inside it. */
export interface RecordPlan {
  retry: string;
  tagBytes: number;
  bizKeyBytes: number;
  bodyBytes: number;
  topicBytes: number;
  size: number;
}

export function planRecord(job: NewJob, now: EpochMs): RecordPlan {
  const retry = encodeRetry(job.retry);
  const tagBytes = job.tag == null ? 0 : Buffer.byteLength(job.tag);
  const bizKeyBytes = job.bizKey == null ? 0 : Buffer.byteLength(job.bizKey);
  const bodyBytes = Buffer.byteLength(job.body);
  const topicBytes = Buffer.byteLength(job.topic);
  if (topicBytes > TOPIC_MAX_BYTES)
    throw new RangeError(`topic of ${topicBytes} bytes: the record holds at most ${TOPIC_MAX_BYTES}`);
  const optional = (job.ttlMs != null ? TIME_BYTES : 0) + (job.runAt <= now ? TIME_BYTES : 0);
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
 * Writes a new job's record at `pos`: delayed (or ready when runAt <= now) with bucket 0, which push.lua
 * replaces with the bucket it chooses, and the push entry. Returns where the record ends.
 */
export function writeNewRecord(
  b: Buffer,
  pos: number,
  job: NewJob,
  now: EpochMs,
  node: number,
  plan: RecordPlan,
): number {
  const ready = job.runAt <= now;
  const state = ready ? STATE_CODE.ready : STATE_CODE.delayed;
  const ttl = job.ttlMs ?? null;
  b[pos + HEAD_AT.flags] = state | (ttl !== null ? FLAG.ttlMs : 0) | (ready ? FLAG.readyAt : 0);
  b.writeUInt16BE(0, pos + HEAD_AT.attempts);
  b.writeInt16BE(job.priority, pos + HEAD_AT.priority);
  b.writeUInt32BE(job.ttrMs, pos + HEAD_AT.ttrMs);
  b.writeIntBE(now, pos + HEAD_AT.createdAt, TIME_BYTES);
  b.writeIntBE(job.runAt, pos + HEAD_AT.runAt, TIME_BYTES);
  b.writeUIntBE(0, pos + HEAD_AT.bucket, 3);
  pos += HEAD_BYTES;
  if (ttl !== null) pos = b.writeIntBE(ttl, pos, TIME_BYTES);
  if (ready) pos = b.writeIntBE(now, pos, TIME_BYTES); // readyAt
  b[pos++] = plan.topicBytes;
  pos += b.write(job.topic, pos, 'utf8');
  pos = writeArray(b, pos, 4);
  pos = job.tag == null ? writeFalse(b, pos) : writeStr(b, pos, job.tag, plan.tagBytes);
  pos = job.bizKey == null ? writeFalse(b, pos) : writeStr(b, pos, job.bizKey, plan.bizKeyBytes);
  pos = writeStr(b, pos, job.body, plan.bodyBytes);
  pos = writeStr(b, pos, plan.retry, plan.retry.length); // ASCII
  pos = b.writeIntBE(now, pos, TIME_BYTES); // the push entry
  b[pos++] = EVENT_CODE.push * EVENT_MUL + state;
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
