// The Lua scripts name every state, event, flag bit and outcome by the prelude's constants (lua-prelude.ts,
// generated from record-layout.ts): a raw integer in one of those places is a second definition that can
// drift from the TypeScript one. This scan finds them.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { luaConstants } from '../../src/store/redis/lua-prelude.js';
import { STATE_CODE, EVENT_CODE, FLAG } from '../../src/store/redis/record-layout.js';

const LUA_DIR = new URL('../../src/store/redis/lua/', import.meta.url);

/** The code of a Lua file without its comments; strings kept (a counts field is built in one). */
function code(source: string): string {
  return source
    .replace(/--\[\[[\s\S]*?\]\]/g, '')
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n');
}

/** The top-level arguments of every call to `fn` in `text`. */
function callArgs(text: string, fn: string): string[][] {
  const calls: string[][] = [];
  const re = new RegExp(`\\b${fn}\\(`, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const args: string[] = [];
    let depth = 0;
    let arg = '';
    for (let i = m.index + m[0].length; i < text.length; i++) {
      const c = text[i]!;
      if (c === '(' || c === '{') depth++;
      if (c === ')' || c === '}') {
        if (depth === 0) break;
        depth--;
      }
      if (c === ',' && depth === 0) {
        args.push(arg.trim());
        arg = '';
      } else arg += c;
    }
    args.push(arg.trim());
    calls.push(args);
  }
  return calls;
}

const NUMBER = /^-?\d+$/;

/** Each place in `source` where a state, event, flag or outcome is written as a number. */
export function rawCodes(source: string): string[] {
  const text = code(source);
  const found: string[] = [];
  const add = (what: string, m: RegExpExecArray | string) => found.push(`${what}: ${String(m).trim()}`);
  const patterns: [string, RegExp][] = [
    // h.state ~= 3, state == 1, old == 2, 4 == h.state
    ['state compared with a number', /\b(?:\w+\.)?(?:state|old)\s*(?:==|~=|<=|>=|<|>)\s*-?\d+/g],
    ['state compared with a number', /-?\d+\s*(?:==|~=)\s*(?:\w+\.)?state\b/g],
    // local state = delayed and 1 or 2
    ['state chosen as a number', /\bstate\s*=[^\n]*\b(?:and|or)\s+\d+/g],
    // `topic .. '|3'`: a counts field
    ['counts field with a state number', /'\|\d+'/g],
    // {-3, 3}, { -2, 4 }: a refusal with its state
    ['refusal written as numbers', /\{\s*-?\d+\s*,\s*-?\d+\s*\}/g],
    // { -1 }, return { 0, rec }
    ['outcome written as a number', /(?:return|=)\s*\{\s*-\d+\s*[,}]/g],
    ['outcome written as a number', /return\s*\{\s*[01]\s*,/g],
    // bit.band(b, 8), b % 8
    ['flag bit written as a number', /bit\.band\([^)]*,\s*\d+\s*\)/g],
    ['state bits written as a number', /%\s*8\b/g],
  ];
  for (const [what, re] of patterns) for (let m = re.exec(text); m; m = re.exec(text)) add(what, m[0]);
  // rewrite(s, h, at, event, …) and entry(at, event, state, …)
  for (const args of callArgs(text, 'rewrite')) if (NUMBER.test(args[3] ?? '')) add('event as a number', args[3]!);
  for (const args of callArgs(text, 'entry'))
    for (const a of [args[1], args[2]]) if (NUMBER.test(a ?? '')) add('event or state as a number', a!);
  // h.state, h.token = 5, false: a state assigned as a number, position by position
  for (const m of text.matchAll(/^\s*(?:local\s+)?([\w.]+(?:\s*,\s*[\w.]+)*)\s*=\s*([^=\n][^\n]*)$/gm)) {
    const names = m[1]!.split(',').map((s) => s.trim());
    const values = m[2]!.split(',').map((s) => s.trim());
    names.forEach((name, i) => {
      if (/(?:^|\.)(?:state|event)$/.test(name) && NUMBER.test(values[i] ?? '')) add('state set to a number', m[0]);
    });
  }
  return found;
}

describe('the Lua scripts name states, events, flags and outcomes (no raw integers)', () => {
  it('finds the raw codes it is meant to find', () => {
    const bad = [
      'if h.state ~= 3 then return { -2, h.state } end',
      'if h.token ~= token then return { -3, 3 } end',
      'local state = delayed and 1 or 2',
      "redis.call('HINCRBY', counts, topic .. '|3', -1)",
      'h.state, h.token, h.deadline = 5, false, false',
      'local rec = rewrite(packed, h, now, 7, err, node)',
      'packed = head .. entry(at, 2, 2, attempt, node, false)',
      'if bit.band(b, 16) ~= 0 then x = 1 end',
      'local state = b % 8',
      'if not packed then return { -1 } end',
      'return { 0, rec }',
      'if old == 1 then end',
    ];
    for (const line of bad) expect(rawCodes(line), line).not.toEqual([]);
    const good = [
      'if h.state ~= STATE_RESERVED then return { OUTCOME_WRONG_STATE, h.state } end',
      "redis.call('HINCRBY', counts, countOf(topic, STATE_READY), -1)",
      'local rec = rewrite(packed, h, now, EVENT_BURY, err, node)',
      'for i = 1, #ids, 4000 do x = i end',
      '-- h.state ~= 3 in a comment',
    ];
    for (const line of good) expect(rawCodes(line), line).toEqual([]);
  });

  it('finds none in any script', () => {
    const files = readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua'));
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((f) => rawCodes(readFileSync(new URL(f, LUA_DIR), 'utf8')).map((x) => `${f}: ${x}`));
    expect(found).toEqual([]);
  });

  it('generates one constant per state, event and flag of the layout', () => {
    const prelude = luaConstants();
    for (const [state, n] of Object.entries(STATE_CODE))
      expect(prelude).toContain(`local STATE_${state.toUpperCase()} = ${n}\n`);
    for (const [event, n] of Object.entries(EVENT_CODE))
      expect(prelude).toContain(`local EVENT_${event.toUpperCase()} = ${n}\n`);
    expect(prelude).toContain(`local FLAG_LAST_ERROR = ${FLAG.lastError}\n`);
    expect(prelude).toContain(`local HEAD = '>BHhI4i6i6I3'\n`);
    expect(prelude).toContain(`local ENTRY = '>i6BHI3'\n`);
  });
});
