import { Packr, Unpackr } from 'msgpackr';
import type { RecordArray } from './job-record.js';

/*
 * Stored records: a binary head (state, times, token…), a msgpack body {tag, bizKey, body, retry} and
 * fixed-width history entries. The layout is documented once, at the top of lua/record.lua; the scripts
 * rewrite the head and append entries with Lua's struct library, Node packs new records (push-args.ts)
 * and decodes what the scripts return (the records as stored).
 */

/** Head bytes before the optional fields: B state+flags, H attempts, h priority, I4 ttr, i6 createdAt, i6 runAt, I3 bucket. */
export const HEAD_BYTES = 24;
/** Flag bits of the head's first byte (bits 0–2 hold the state). */
export const FLAG = { ttl: 8, readyAt: 16, reservedAt: 32, finishedAt: 64, lastError: 128 } as const;
/** A history entry without its reason: i6 at, B event × 8 + state (+128: reason), H attempt, I3 node. */
export const ENTRY_BYTES = 12;
const RESERVED = 3;

// Plain msgpack (arrays only, no msgpackr records/structures extension), as cmsgpack reads it in list.lua.
export const bodyPackr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: false, int64AsType: 'number' });

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
  const time = (flag: number): number | null => {
    if (!(flags & flag)) return null;
    pos += 6;
    return b.readIntBE(pos - 6, 6);
  };
  const ttlMs = time(FLAG.ttl);
  const readyAt = time(FLAG.readyAt);
  const reservedAt = time(FLAG.reservedAt);
  const finishedAt = time(FLAG.finishedAt);
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
  }
  const topicLength = b[pos]!;
  const topic = b.toString('utf8', pos + 1, pos + 1 + topicLength);
  pos += 1 + topicLength;
  let body: unknown[] = [];
  let historyAt = pos;
  const bodyAt = pos;
  unpackr.unpackMultiple(b.subarray(bodyAt), (value: unknown, _start?: number, end?: number) => {
    body = value as unknown[];
    historyAt = bodyAt + end!;
    return false;
  });
  const nul = (v: unknown): unknown => (v === false ? null : v);
  return [
    topic, nul(body[0]), nul(body[1]), body[2], state, runAt, priority, ttrMs, ttlMs, body[3], attempts, lastError, token,
    deadlineAt, createdAt, readyAt, reservedAt, finishedAt, withHistory ? readEntries(b, historyAt) : null, bucket,
  ];
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
