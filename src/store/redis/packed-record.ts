import { Unpackr } from 'msgpackr';
import type { RecordArray } from './job-record.js';

// Stored records are cmsgpack arrays (push.lua lists the fields). The hot scripts (reserve, finish) return
// the packed string as it is stored instead of a nested RESP array: one bulk string per job is cheaper
// for Redis to write and for Node to read (msgpackr) than ~20 RESP elements.
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: false, int64AsType: 'number' });

/** Decodes a stored record into the shape Lua replies have: Lua's `false` (our null) becomes null. */
export function unpackRecord(packed: Buffer): RecordArray {
  const record = unpackr.unpack(packed) as unknown[];
  for (let i = 0; i < record.length; i++) if (record[i] === false) record[i] = null;
  const history = record[18];
  if (Array.isArray(history)) for (const entry of history as unknown[][]) if (entry[5] === false) entry[5] = null;
  return record;
}
