import { TERMINAL_STATES } from '../../core/job.js';
import { OUTCOME_CODES } from '../outcome-codes.js';
import { DUE_COUNTER_MS } from './due-counters.js';
import { ID_PAGE_ENTRIES, LIST_BUDGET } from './id-index.js';
import {
  ENTRY_FIELDS,
  ENTRY_REASON,
  EVENT_CODE,
  EVENT_MUL,
  FLAG,
  HEAD_AT,
  HEAD_FIELDS,
  READY_MEMBER_ID_AT,
  STATE_CODE,
  STATE_MASK,
  structFormat,
  TIME_BYTES,
} from './record-layout.js';

/** `readyAt` → `READY_AT`. */
const upper = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/**
 * The named constants every script starts with, written from record-layout.ts, outcome-codes.ts,
 * due-counters.ts and id-index.ts when the scripts are loaded, so Lua and TypeScript read one definition. Lua offsets are 1-based.
 */
export function luaConstants(): string {
  const lines: string[] = ['-- constants: generated from record-layout.ts (lua-prelude.ts)'];
  const local = (name: string, value: string | number): void => {
    lines.push(`local ${name} = ${typeof value === 'string' ? `'${value}'` : value}`);
  };
  for (const [state, code] of Object.entries(STATE_CODE)) local(`STATE_${upper(state)}`, code);
  const terminal = TERMINAL_STATES.map((state) => `[STATE_${upper(state)}] = true`).join(', ');
  lines.push(`local TERMINAL = { ${terminal} }`);
  for (const [event, code] of Object.entries(EVENT_CODE)) local(`EVENT_${upper(event)}`, code);
  for (const [field, bit] of Object.entries(FLAG)) local(`FLAG_${upper(field)}`, bit);
  local('STATE_MOD', STATE_MASK + 1);
  local('EVENT_MUL', EVENT_MUL);
  local('ENTRY_REASON', ENTRY_REASON);
  local('HEAD', structFormat(HEAD_FIELDS));
  local('ENTRY', structFormat(ENTRY_FIELDS));
  local('TIME', `>i${TIME_BYTES}`);
  for (const [field, at] of Object.entries(HEAD_AT)) local(`HEAD_${upper(field)}_AT`, at + 1);
  local('READY_ID_AT', READY_MEMBER_ID_AT + 1);
  for (const [slot, ms] of Object.entries(DUE_COUNTER_MS)) local(`DUE_${upper(slot)}_MS`, ms);
  local('ID_PAGE_ENTRIES', ID_PAGE_ENTRIES);
  local('LIST_BUDGET', LIST_BUDGET);
  local('OUTCOME_OK', OUTCOME_CODES.ok);
  local('OUTCOME_REPEATED', OUTCOME_CODES.repeated);
  local('OUTCOME_NOT_FOUND', OUTCOME_CODES.notFound);
  local('OUTCOME_WRONG_STATE', OUTCOME_CODES.wrongState);
  local('OUTCOME_TOKEN_MISMATCH', OUTCOME_CODES.tokenMismatch);
  return lines.join('\n') + '\n';
}
