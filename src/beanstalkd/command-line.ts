/**
 * How beanstalkd 1.12 reads a command line, so odd lines get its answers too (docs/beanstalkd.md, "Command
 * lines"): the command is found by prefix, in beanstalkd's order, where a command that takes arguments
 * includes its space (`delete ` matches "delete 7", `stats` matches "statsx", which then fails its length
 * check, and any line starting with `quit` closes the connection); then each command reads its own
 * arguments with one of the readers below, each as lenient or as strict as beanstalkd's.
 */

export type CommandName =
  | 'put'
  | 'peek'
  | 'peek-ready'
  | 'peek-delayed'
  | 'peek-buried'
  | 'reserve-with-timeout'
  | 'reserve-job'
  | 'reserve'
  | 'delete'
  | 'release'
  | 'bury'
  | 'kick'
  | 'kick-job'
  | 'touch'
  | 'stats-job'
  | 'stats-tube'
  | 'stats'
  | 'use'
  | 'watch'
  | 'ignore'
  | 'list-tubes-watched'
  | 'list-tube-used'
  | 'list-tubes'
  | 'quit'
  | 'pause-tube';

/** beanstalkd's match order: the first prefix a line starts with names its command. */
const PREFIXES: readonly (readonly [prefix: string, name: CommandName])[] = [
  ['put ', 'put'],
  ['peek ', 'peek'],
  ['peek-ready', 'peek-ready'],
  ['peek-delayed', 'peek-delayed'],
  ['peek-buried', 'peek-buried'],
  ['reserve-with-timeout ', 'reserve-with-timeout'],
  ['reserve-job ', 'reserve-job'],
  ['reserve', 'reserve'],
  ['delete ', 'delete'],
  ['release ', 'release'],
  ['bury ', 'bury'],
  ['kick ', 'kick'],
  ['kick-job ', 'kick-job'],
  ['touch ', 'touch'],
  ['stats-job ', 'stats-job'],
  ['stats-tube ', 'stats-tube'],
  ['stats', 'stats'],
  ['use ', 'use'],
  ['watch ', 'watch'],
  ['ignore ', 'ignore'],
  ['list-tubes-watched', 'list-tubes-watched'],
  ['list-tube-used', 'list-tube-used'],
  ['list-tubes', 'list-tubes'],
  ['quit', 'quit'],
  ['pause-tube', 'pause-tube'],
];

/** The lines matched most often, looked up before the walk: a whole line without arguments, or a first word. */
const BARE_LINES = new Map(PREFIXES.filter(([p, n]) => !p.endsWith(' ') && n !== 'pause-tube').map(([p, n]) => [p, n]));
const WORDS_WITH_ARGUMENTS = new Map(PREFIXES.filter(([p]) => p.endsWith(' ')).map(([p, n]) => [p.slice(0, -1), n]));

/** A command line's command and what follows its prefix; null for an unknown command (UNKNOWN_COMMAND). */
export function commandOf(line: string): { name: CommandName; rest: string } | null {
  // The same answers as the walk: no earlier prefix can match a line whose first word is one of these.
  const bare = BARE_LINES.get(line);
  if (bare) return { name: bare, rest: '' };
  const space = line.indexOf(' ');
  const withArguments = space > 0 ? WORDS_WITH_ARGUMENTS.get(line.slice(0, space)) : undefined;
  if (withArguments) return { name: withArguments, rest: line.slice(space + 1) };
  for (const [prefix, name] of PREFIXES) {
    if (line.startsWith(prefix)) return { name, rest: line.slice(prefix.length) };
  }
  return null;
}

/** A number read from the front of a text, and the text after it. */
export interface Read<T> {
  value: T;
  rest: string;
}

const U32_MAX = 0xffffffffn;
const U64_MAX = 0xffffffffffffffffn;
const LONG_MAX = 0x7fffffffffffffffn;
const DIGITS_RE = /^ *(\d+)/;
/** C's isspace: what strtol and strtoul skip. */
const SPACES_RE = /^[ \t\n\v\f\r]*/;

/**
 * An unsigned number as beanstalkd's read_u32/read_u64 take it: spaces, then at least one digit, in range;
 * `last`: nothing may follow it. Job ids are 64-bit: one beyond Number's exact range names no job.
 */
function readUnsigned(text: string, max: bigint, last: boolean): Read<bigint> | null {
  const m = DIGITS_RE.exec(text);
  if (!m) return null;
  const rest = text.slice(m[0].length);
  if (last && rest !== '') return null;
  const value = BigInt(m[1]!);
  return value > max ? null : { value, rest };
}

export function readU32(text: string, last: boolean): Read<number> | null {
  const r = readUnsigned(text, U32_MAX, last);
  return r && { value: Number(r.value), rest: r.rest };
}

/** A job id (64-bit); ids past 2^53 come back as Infinity, which no job has. */
export function readJobId(text: string, last: boolean): Read<number> | null {
  const r = readUnsigned(text, U64_MAX, last);
  return r && { value: r.value > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(r.value), rest: r.rest };
}

/** C's strtol/strtoul front: white space, a sign, digits (absent: no number). */
function readSigned(text: string): { negative: boolean; digits: string } {
  const after = text.slice(SPACES_RE.exec(text)![0].length);
  const m = /^([+-]?)(\d*)/.exec(after)!;
  return { negative: m[1] === '-', digits: m[2]! };
}

/**
 * reserve-with-timeout's seconds, as beanstalkd reads them with strtol into an int: anything after the
 * number is ignored, no number at all is 0, out of a long's range is BAD_FORMAT (null), and a value that
 * comes out negative in 32 bits means no timeout (`Infinity`).
 */
export function readTimeoutSeconds(text: string): number | null {
  const { negative, digits } = readSigned(text);
  if (digits === '') return 0;
  const magnitude = BigInt(digits);
  if (magnitude > (negative ? LONG_MAX + 1n : LONG_MAX)) return null;
  const asInt = Number(BigInt.asIntN(32, negative ? -magnitude : magnitude));
  return asInt < 0 ? Infinity : asInt;
}

/**
 * kick's bound, as beanstalkd reads it with strtoul into an unsigned int: anything after the number is
 * ignored, a minus wraps around, but there must be digits and the magnitude must fit 64 bits (else null).
 */
export function readKickBound(text: string): number | null {
  const { negative, digits } = readSigned(text);
  if (digits === '') return null;
  const magnitude = BigInt(digits);
  if (magnitude > U64_MAX) return null;
  return Number(BigInt.asUintN(32, negative ? -magnitude : magnitude));
}

/** Letters, digits and `- + / ; . $ _ ( )`: beanstalkd's NAME_CHARS. */
const NAME_CHARS_RE = /^[A-Za-z0-9\-+/;.$_()]+/;
/** beanstalkd's longest tube name. */
const MAX_TUBE_NAME = 200;

/** A tube name beanstalkd holds: 1–200 of its name characters, not starting with `-`. */
export function isBeanstalkdTubeName(name: string): boolean {
  const m = NAME_CHARS_RE.exec(name);
  return m !== null && m[0].length === name.length && name.length <= MAX_TUBE_NAME && !name.startsWith('-');
}

/** pause-tube's tube: spaces, then a run of name characters (checked as a whole name afterwards). */
export function readTubeName(text: string): Read<string> | null {
  const after = text.replace(/^ */, '');
  const m = NAME_CHARS_RE.exec(after);
  return m && { value: m[0], rest: after.slice(m[0].length) };
}
