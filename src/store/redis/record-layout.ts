import { HISTORY_EVENTS, JOB_STATES, type HistoryEvent, type JobState } from '../../core/job.js';

/*
 * The stored job record, defined once: the TypeScript codec (record-codec.ts) reads and packs it, and the
 * Lua scripts get these same facts as named constants (lua-prelude.ts). A record is head, body, history,
 * integers big-endian:
 *   head    the fixed fields of HEAD_FIELDS (the first byte holds the state and the FLAG bits), then
 *           only the OPTIONAL_TIMES whose flag is set, the I4-length lastError when flagged, a reserved
 *           job's deadlineAt and B-length token or a finished job's B-length finishing token, then the
 *           B-length topic
 *   body    msgpack array {tag, bizKey, body, retry} (null = false): scripts copy it as bytes
 *   history one ENTRY_FIELDS entry per transition, then an I4-length reason when ENTRY_REASON is set
 * Absent fields take no bytes. A change to any of this, or to what else a partition keeps beside the
 * records, takes a new RECORD_LAYOUT. Layout 4 adds the due-time counters (due-counters.ts), layout 5 the
 * bizKey and tag indexes (lua/label-index.lua), layout 6 each topic's due index (lua/due-index.lua),
 * layout 7 each topic's id index (lua/id-index.lua); lua/upgrade-layout.lua (and id-index-build.ts, for the
 * id index) builds what a partition of an older layout lacks when it is opened.
 */

/** The layout number a partition records (register-node.lua refuses to open a partition of another). */
export const RECORD_LAYOUT = 7;
/** The layouts this delayq upgrades in place when it opens a partition written in one (node-registration.ts). */
export const UPGRADABLE_LAYOUTS: readonly number[] = [3, 4, 5, 6];

/** A fixed-width big-endian integer field: its width in bytes and whether it is signed. */
interface IntField {
  readonly name: string;
  readonly bytes: 1 | 2 | 3 | 4 | 6;
  readonly signed: boolean;
}

/** The head's fixed fields in their order; `flags` is the state in bits 0–2 plus the FLAG bits. */
export const HEAD_FIELDS = [
  { name: 'flags', bytes: 1, signed: false },
  { name: 'attempts', bytes: 2, signed: false },
  { name: 'priority', bytes: 2, signed: true },
  { name: 'ttrMs', bytes: 4, signed: false },
  { name: 'createdAt', bytes: 6, signed: true },
  { name: 'runAt', bytes: 6, signed: true },
  { name: 'bucket', bytes: 3, signed: false },
] as const satisfies readonly IntField[];

type HeadField = (typeof HEAD_FIELDS)[number]['name'];

/** Byte offset (0-based) of each fixed head field. */
export const HEAD_AT = offsets(HEAD_FIELDS) as { readonly [F in HeadField]: number };
/** Bytes of the fixed head. */
export const HEAD_BYTES = HEAD_FIELDS.reduce((n, f) => n + f.bytes, 0);

/** A history entry's fixed fields; `code` is event × EVENT_MUL + state, plus ENTRY_REASON when a reason follows. */
export const ENTRY_FIELDS = [
  { name: 'at', bytes: 6, signed: true },
  { name: 'code', bytes: 1, signed: false },
  { name: 'attempt', bytes: 2, signed: false },
  { name: 'node', bytes: 3, signed: false },
] as const satisfies readonly IntField[];

type EntryField = (typeof ENTRY_FIELDS)[number]['name'];

export const ENTRY_AT = offsets(ENTRY_FIELDS) as { readonly [F in EntryField]: number };
/** Bytes of an entry without its reason. */
export const ENTRY_BYTES = ENTRY_FIELDS.reduce((n, f) => n + f.bytes, 0);
/** Set in an entry's code when an I4-length reason follows the entry. */
export const ENTRY_REASON = 128;

/** Bits 0–2 of the head's first byte: the state code. */
export const STATE_MASK = 7;
/** An entry's code packs the event above the state: event × EVENT_MUL + state. */
export const EVENT_MUL = STATE_MASK + 1;

/** Flag bits of the head's first byte: which optional fields follow the fixed head. */
export const FLAG = { ttlMs: 8, readyAt: 16, reservedAt: 32, finishedAt: 64, lastError: 128 } as const;
/** The optional times (i6 each), in the order they follow the fixed head when flagged. */
export const OPTIONAL_TIMES = ['ttlMs', 'readyAt', 'reservedAt', 'finishedAt'] as const;
/** Width of every time in the record (epoch ms, signed). */
export const TIME_BYTES = 6;

/** States and events are stored as 1-based indexes into the core's JOB_STATES and HISTORY_EVENTS. */
export const STATE_CODE = codes(JOB_STATES) as { readonly [S in JobState]: number };
export const EVENT_CODE = codes(HISTORY_EVENTS) as { readonly [E in HistoryEvent]: number };

export function stateOf(code: number): JobState {
  const state = JOB_STATES[code - 1];
  if (state === undefined) throw new Error(`record: unknown state code ${code}`);
  return state;
}

export function eventOf(code: number): HistoryEvent {
  const event = HISTORY_EVENTS[code - 1];
  if (event === undefined) throw new Error(`record: unknown event code ${code}`);
  return event;
}

/** A ready set's member: runAt and createdAt (fixed-width, so members sort as the ready order), then the id. */
export const READY_MEMBER_ID_AT = 2 * TIME_BYTES;

/** Longest topic a record holds (its length is one byte). */
export const TOPIC_MAX_BYTES = 255;

/** Stands for null in a script's string argument (tags, keys and errors never hold control characters). */
export const NULL_ARG = '\0';

function offsets(fields: readonly IntField[]): Record<string, number> {
  const at: Record<string, number> = {};
  let pos = 0;
  for (const f of fields) {
    at[f.name] = pos;
    pos += f.bytes;
  }
  return at;
}

function codes(names: readonly string[]): Record<string, number> {
  return Object.fromEntries(names.map((name, i) => [name, i + 1]));
}

/** Lua struct format of fixed-width integer fields, big-endian ('>BHhI4i6i6I3' for the head). */
export function structFormat(fields: readonly IntField[]): string {
  return (
    '>' +
    fields
      .map(({ bytes, signed }) =>
        bytes === 1 ? (signed ? 'b' : 'B') : bytes === 2 ? (signed ? 'h' : 'H') : `${signed ? 'i' : 'I'}${bytes}`,
      )
      .join('')
  );
}
