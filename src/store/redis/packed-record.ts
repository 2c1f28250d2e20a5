import type { RecordArray } from './job-record.js';

/*
 * Stored records: a binary head (state, times, token…), a msgpack body {tag, bizKey, body, retry} and
 * fixed-width history entries. The layout is documented once, at the top of lua/record.lua; the scripts
 * rewrite the head and append entries with Lua's struct library, Node packs new records (push-args.ts)
 * and decodes what the scripts return (the records as stored).
 */

/**
 * The number of the record layout (lua/record.lua). A partition remembers the layout its jobs are written
 * in (register-node.lua), so a delayq never misreads records of another layout: it refuses to open.
 */
export const RECORD_LAYOUT = 3;
/** Head bytes before the optional fields: B state+flags, H attempts, h priority, I4 ttr, i6 createdAt, i6 runAt, I3 bucket. */
export const HEAD_BYTES = 24;
/** Flag bits of the head's first byte (bits 0–2 hold the state). */
export const FLAG = { ttl: 8, readyAt: 16, reservedAt: 32, finishedAt: 64, lastError: 128 } as const;
/** A history entry without its reason: i6 at, B event × 8 + state (+128: reason), H attempt, I3 node. */
export const ENTRY_BYTES = 12;
const RESERVED = 3;
const FINISHED = 4;

/**
 * Decodes a stored record into the positional shape job-record.ts reads (the fields in the order
 * recordToJob names them, null for absent). History entries ({at, event, state, attempt, node, reason})
 * are decoded only when asked for.
 */
export function unpackRecord(b: Buffer, withHistory = false): RecordArray {
  const flags = b[0]!;
  const state = flags & 7;
  const attempts = b.readUInt16BE(1);
  const priority = b.readInt16BE(3);
  const ttrMs = b.readUInt32BE(5);
  const createdAt = b.readIntBE(9, 6);
  const runAt = b.readIntBE(15, 6);
  const bucket = b.readUIntBE(21, 3);
  let pos = HEAD_BYTES;
  // The optional times, written out: a closure here cost more than the reads (tsx wraps each one it
  // creates in a __name call, once per record).
  const ttlMs = flags & FLAG.ttl ? b.readIntBE(pos, 6) : null;
  if (ttlMs !== null) pos += 6;
  const readyAt = flags & FLAG.readyAt ? b.readIntBE(pos, 6) : null;
  if (readyAt !== null) pos += 6;
  const reservedAt = flags & FLAG.reservedAt ? b.readIntBE(pos, 6) : null;
  if (reservedAt !== null) pos += 6;
  const finishedAt = flags & FLAG.finishedAt ? b.readIntBE(pos, 6) : null;
  if (finishedAt !== null) pos += 6;
  let lastError: string | null = null;
  if (flags & FLAG.lastError) {
    const n = b.readUInt32BE(pos);
    lastError = b.toString('utf8', pos + 4, pos + 4 + n);
    pos += 4 + n;
  }
  let deadlineAt: number | null = null;
  let token: string | null = null;
  if (state === RESERVED) {
    deadlineAt = b.readIntBE(pos, 6);
    const n = b[pos + 6]!;
    token = b.toString('latin1', pos + 7, pos + 7 + n);
    pos += 7 + n;
  } else if (state === FINISHED) {
    // The token that finished the job (a repeat of that finish is answered as done): the scripts' business.
    pos += 1 + b[pos]!;
  }
  const topicLength = b[pos]!;
  const topic = b.toString('utf8', pos + 1, pos + 1 + topicLength);
  pos += 1 + topicLength;
  // The body {tag, bizKey, body, retry} (strings or false), read here: msgpackr's unpackMultiple, its only
  // call that tells where a value ends, made decoding a record ≈ 10 µs instead of ≈ 0.8.
  if (b[pos] !== 0x94)
    throw new Error(`record body: expected a 4-element msgpack array, found 0x${b[pos]?.toString(16)}`);
  cursor = pos + 1;
  const tag = readString(b);
  const bizKey = readString(b);
  const body = readString(b);
  const retry = readString(b);
  const historyAt = cursor;
  return [
    topic,
    tag,
    bizKey,
    body,
    state,
    runAt,
    priority,
    ttrMs,
    ttlMs,
    retry,
    attempts,
    lastError,
    token,
    deadlineAt,
    createdAt,
    readyAt,
    reservedAt,
    finishedAt,
    withHistory ? readEntries(b, historyAt) : null,
    bucket,
  ];
}

/** readString's position in the record being decoded (records are decoded one at a time, synchronously). */
let cursor = 0;

/** A msgpack string (fixstr, str8, str16 or str32) or false (null) at `cursor`, which it moves past it. */
function readString(b: Buffer): string | null {
  const type = b[cursor]!;
  let start: number;
  let length: number;
  if (type >= 0xa0 && type <= 0xbf) {
    start = cursor + 1;
    length = type - 0xa0;
  } else if (type === 0xd9) {
    start = cursor + 2;
    length = b[cursor + 1]!;
  } else if (type === 0xda) {
    start = cursor + 3;
    length = b.readUInt16BE(cursor + 1);
  } else if (type === 0xdb) {
    start = cursor + 5;
    length = b.readUInt32BE(cursor + 1);
  } else if (type === 0xc2) {
    cursor += 1;
    return null;
  } else throw new Error(`record body: expected a msgpack string or false, found 0x${type.toString(16)}`);
  cursor = start + length;
  return b.toString('utf8', start, cursor);
}

function readEntries(b: Buffer, pos: number): unknown[][] {
  const entries: unknown[][] = [];
  while (pos < b.length) {
    const at = b.readIntBE(pos, 6);
    const code = b[pos + 6]!;
    const attempt = b.readUInt16BE(pos + 7);
    const node = b.readUIntBE(pos + 9, 3);
    pos += ENTRY_BYTES;
    let reason: string | null = null;
    if (code & 128) {
      const n = b.readUInt32BE(pos);
      reason = b.toString('utf8', pos + 4, pos + 4 + n);
      pos += 4 + n;
    }
    entries.push([at, (code & 127) >> 3, code & 7, attempt, node, reason]);
  }
  return entries;
}
