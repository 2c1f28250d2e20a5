import type { EpochMs } from '../../core/clock.js';
import type { HistoryEvent, JobState, NewJob } from '../../core/job.js';
import { dedupPushReason } from '../../core/push-dedup.js';
import { invalid } from '../../core/errors.js';
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
  /** The job's group (stored with the topic as `topic/group`), or null. */
  group: string | null;
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
  event: HistoryEvent;
  state: JobState;
  attempt: number;
  node: number;
  reason: string | null;
}

const MSGPACK_ARRAY_4 = 0x94;
// The layout's numbers as this module's own constants, so the decoder reads no other module's bindings.
const FLAGS_AT = HEAD_AT.flags;
const ATTEMPTS_AT = HEAD_AT.attempts;
const PRIORITY_AT = HEAD_AT.priority;
const TTR_AT = HEAD_AT.ttrMs;
const CREATED_AT = HEAD_AT.createdAt;
const RUN_AT = HEAD_AT.runAt;
const BUCKET_AT = HEAD_AT.bucket;
const FIXED_HEAD = HEAD_BYTES;
const TIME = TIME_BYTES;
const MASK = STATE_MASK;
const RESERVED = STATE_CODE.reserved;
const FINISHED = STATE_CODE.finished;
const HAS_TTL = FLAG.ttlMs;
const HAS_READY_AT = FLAG.readyAt;
const HAS_RESERVED_AT = FLAG.reservedAt;
const HAS_FINISHED_AT = FLAG.finishedAt;
const HAS_LAST_ERROR = FLAG.lastError;

/** Decodes a record as stored; pure, so records may be decoded in any order or interleaved. */
export function decodeRecord(b: Buffer, withHistory = false): StoredRecord {
  const flags = b[FLAGS_AT]!;
  const code = flags & MASK;
  let pos = FIXED_HEAD;
  // Each optional time is read only when its flag is set, in OPTIONAL_TIMES order.
  const ttlMs = flags & HAS_TTL ? b.readIntBE(pos, TIME) : null;
  if (ttlMs !== null) pos += TIME;
  const readyAt = flags & HAS_READY_AT ? b.readIntBE(pos, TIME) : null;
  if (readyAt !== null) pos += TIME;
  const reservedAt = flags & HAS_RESERVED_AT ? b.readIntBE(pos, TIME) : null;
  if (reservedAt !== null) pos += TIME;
  const finishedAt = flags & HAS_FINISHED_AT ? b.readIntBE(pos, TIME) : null;
  if (finishedAt !== null) pos += TIME;
  let lastError: string | null = null;
  if (flags & HAS_LAST_ERROR) {
    const n = b.readUInt32BE(pos);
    lastError = b.toString('utf8', pos + 4, pos + 4 + n);
    pos += 4 + n;
  }
  let deadlineAt: number | null = null;
  let token: string | null = null;
  if (code === RESERVED) {
    deadlineAt = b.readIntBE(pos, TIME);
    pos += TIME;
  }
  if (code === RESERVED || code === FINISHED) {
    const n = b[pos]!;
    token = b.toString('latin1', pos + 1, pos + 1 + n);
    pos += 1 + n;
  }
  const topicLength = b[pos]!;
  const { topic, group } = splitTopicField(b.toString('utf8', pos + 1, pos + 1 + topicLength));
  pos += 1 + topicLength;
  if (b[pos] !== MSGPACK_ARRAY_4)
    throw new Error(`record body: expected a 4-element msgpack array, found 0x${b[pos]?.toString(16)}`);
  const tagAt = pos + 1;
  const bizKeyAt = stringEnd(b, tagAt);
  const bodyAt = stringEnd(b, bizKeyAt);
  const retryAt = stringEnd(b, bodyAt);
  const tag = stringAt(b, tagAt);
  const bizKey = stringAt(b, bizKeyAt);
  const body = stringAt(b, bodyAt) ?? '';
  const retry = stringAt(b, retryAt) ?? '';
  return {
    state: stateOf(code),
    attempts: b.readUInt16BE(ATTEMPTS_AT),
    priority: b.readInt16BE(PRIORITY_AT),
    ttrMs: b.readUInt32BE(TTR_AT),
    createdAt: b.readIntBE(CREATED_AT, TIME),
    runAt: b.readIntBE(RUN_AT, TIME),
    bucket: b.readUIntBE(BUCKET_AT, 3),
    ttlMs,
    readyAt,
    reservedAt,
    finishedAt,
    lastError,
    deadlineAt,
    token,
    topic,
    group,
    tag,
    bizKey,
    body,
    retry,
    history: withHistory ? readEntries(b, stringEnd(b, retryAt)) : null,
  };
}

/** Between topic and group in a record's topic field: neither a topic nor a group holds it (core/limits.ts). */
export const GROUP_SEPARATOR = '/';

/** A record's topic field as topic and group (null: none). */
export function splitTopicField(field: string): { topic: string; group: string | null } {
  const cut = field.indexOf(GROUP_SEPARATOR);
  return cut < 0 ? { topic: field, group: null } : { topic: field.slice(0, cut), group: field.slice(cut + 1) };
}

/** Bytes of the msgpack string header (fixstr, str8, str16, str32) at `pos`; 1 for false. */
function headerBytes(type: number): number {
  if (type >= 0xa0 && type <= 0xbf) return 1;
  if (type === 0xd9) return 2;
  if (type === 0xda) return 3;
  if (type === 0xdb) return 5;
  if (type === 0xc2) return 1;
  throw new Error(`record body: expected a msgpack string or false, found 0x${type.toString(16)}`);
}

/** Length of the msgpack string at `pos` (0 for false). */
function textBytes(b: Buffer, pos: number, type: number): number {
  if (type >= 0xa0 && type <= 0xbf) return type - 0xa0;
  if (type === 0xd9) return b[pos + 1]!;
  if (type === 0xda) return b.readUInt16BE(pos + 1);
  if (type === 0xdb) return b.readUInt32BE(pos + 1);
  return 0;
}

/** Where the msgpack string (or false) at `pos` ends. */
function stringEnd(b: Buffer, pos: number): number {
  const type = b[pos]!;
  return pos + headerBytes(type) + textBytes(b, pos, type);
}

/** The msgpack string at `pos`, or null for false. */
function stringAt(b: Buffer, pos: number): string | null {
  const type = b[pos]!;
  if (type === 0xc2) return null;
  const start = pos + headerBytes(type);
  return b.toString('utf8', start, start + textBytes(b, pos, type));
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
  /** The record's topic field: the topic, or `topic/group` for a job with a group. */
  topicField: string;
  topicBytes: number;
  /** The push entry's reason (a keyed push's, push-dedup.ts), or null. */
  reason: string | null;
  size: number;
}

export function planRecord(job: NewJob, now: EpochMs): RecordPlan {
  const retry = encodeRetry(job.retry);
  const tagBytes = job.tag == null ? 0 : Buffer.byteLength(job.tag);
  const bizKeyBytes = job.bizKey == null ? 0 : Buffer.byteLength(job.bizKey);
  const bodyBytes = Buffer.byteLength(job.body);
  // The service refuses such a topic; a caller that hands one to the store itself would have it read back as a group.
  if (job.topic.includes(GROUP_SEPARATOR))
    throw invalid('topic', `must not contain "${GROUP_SEPARATOR}": the Redis store keeps a job's group after it`);
  const topicField = job.group === undefined ? job.topic : `${job.topic}${GROUP_SEPARATOR}${job.group}`;
  const topicBytes = Buffer.byteLength(topicField);
  if (topicBytes > TOPIC_MAX_BYTES) {
    if (job.group !== undefined)
      throw invalid(
        'group',
        `the Redis store keeps a job's topic and group in ${TOPIC_MAX_BYTES} bytes together: this one needs ${topicBytes}`,
      );
    throw new RangeError(`topic of ${topicBytes} bytes: the record holds at most ${TOPIC_MAX_BYTES}`);
  }
  const optional = (job.ttlMs != null ? TIME_BYTES : 0) + (job.runAt <= now ? TIME_BYTES : 0);
  const body =
    1 +
    (job.tag == null ? 1 : strBytes(tagBytes)) +
    (job.bizKey == null ? 1 : strBytes(bizKeyBytes)) +
    strBytes(bodyBytes) +
    strBytes(retry.length);
  const reason = job.dedup ? dedupPushReason(job.dedup) : null;
  return {
    retry,
    tagBytes,
    bizKeyBytes,
    bodyBytes,
    topicField,
    topicBytes,
    reason,
    size: HEAD_BYTES + optional + 1 + topicBytes + body + ENTRY_BYTES + (reason === null ? 0 : 4 + reason.length),
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
  pos += b.write(plan.topicField, pos, 'utf8');
  pos = writeArray(b, pos, 4);
  pos = job.tag == null ? writeFalse(b, pos) : writeStr(b, pos, job.tag, plan.tagBytes);
  pos = job.bizKey == null ? writeFalse(b, pos) : writeStr(b, pos, job.bizKey, plan.bizKeyBytes);
  pos = writeStr(b, pos, job.body, plan.bodyBytes);
  pos = writeStr(b, pos, plan.retry, plan.retry.length); // ASCII
  pos = b.writeIntBE(now, pos, TIME_BYTES); // the push entry
  b[pos++] = EVENT_CODE.push * EVENT_MUL + state + (plan.reason === null ? 0 : ENTRY_REASON);
  pos = b.writeUInt16BE(0, pos);
  pos = b.writeUIntBE(node, pos, 3);
  if (plan.reason === null) return pos;
  // ASCII: a dedup key's characters and digits.
  pos = b.writeUInt32BE(plan.reason.length, pos);
  return pos + b.write(plan.reason, pos, 'latin1');
}

/** One new job's record on its own (push.lua's input is pushArgs's; this is for tests and tools). */
export function packNewRecord(job: NewJob, now: EpochMs, node: number): Buffer {
  const plan = planRecord(job, now);
  const b = Buffer.allocUnsafe(plan.size);
  writeNewRecord(b, 0, job, now, node, plan);
  return b;
}
