import { readFileSync } from 'node:fs';
import type { RedisClient } from './connection.js';
import { luaConstants } from './lua-prelude.js';

/** One Lua file per transition (lua/NAME.lua); each is registered once and called through EVALSHA. */
export const SCRIPT_NAMES = [
  'push',
  'cancel',
  'reschedule',
  'run-now',
  'upsert',
  'reserve',
  'reserve-groups',
  'touch',
  'finish',
  'retry',
  'bury',
  'release',
  'redrive',
  'due-scores',
  'due-histogram',
  'due-histogram-scan',
  'promote',
  'lapsed',
  'expire',
  'purge',
  'get',
  'list',
  'register-node',
  'record-outcome',
  'outcome',
  'set-retention',
  'delete-ended',
  'reserve-job',
  'restore-reservation',
  'peek',
  'upgrade-layout',
  'upgrade-id-index',
  'append-events',
  'take-dispatch-tokens',
  'dedup-claim',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

/** Scripts that read no job record: no prelude, and keys of their own. */
const OWN_KEYS: Partial<Record<ScriptName, number>> = {
  /** nodes, counts and jobs of one partition */
  'register-node': 3,
  /** the event stream, outside the partitions */
  'append-events': 1,
  /** one topic's dispatch token bucket, outside the partitions */
  'take-dispatch-tokens': 1,
  /** one claim of a topic's dedup key, outside the partitions */
  'dedup-claim': 1,
};

/** Every script takes the six partition keys (keys.ts), except those of OWN_KEYS. */
const keyCount = (name: ScriptName): number => OWN_KEYS[name] ?? 6;
const commandName = (name: ScriptName): string => `delayq_${name.replaceAll('-', '_')}`;

const read = (name: string): string => readFileSync(new URL(`./lua/${name}.lua`, import.meta.url), 'utf8');

/** Shared Lua inserted into the scripts that use it, after the prelude. */
const SHARED: readonly { file: string; into: readonly ScriptName[] }[] = [
  /** The search for due delayed jobs, for the two scripts that move them. */
  { file: 'due-jobs', into: ['promote', 'reserve'] },
  /** The log of ended jobs, for the scripts that end jobs and for purge. */
  { file: 'ended-log', into: ['finish', 'bury', 'cancel', 'expire', 'purge', 'reserve'] },
  /** Expiry of ready jobs whose ttl ran out, for expire and reserve (which runs it first). */
  { file: 'expire-due', into: ['expire', 'reserve'] },
  /** The id index of topics (and of labels past a page), for the scripts that create, delete and list records, and the upgrades. */
  { file: 'id-index', into: ['push', 'purge', 'delete-ended', 'list', 'upgrade-id-index', 'upgrade-layout'] },
  /** The bizKey and tag indexes (on id-index's pages past a page): push, delete, list, and the upgrade that builds them. */
  { file: 'label-index', into: ['push', 'purge', 'delete-ended', 'list', 'upgrade-layout'] },
  /** The due index and each topic's copy of it, for the scripts that change a delayed set's head. */
  {
    file: 'due-index',
    into: [
      'push',
      'upsert',
      'cancel',
      'reschedule',
      'run-now',
      'reserve',
      'reserve-job',
      'restore-reservation',
      'release',
      'retry',
      'promote',
      'upgrade-layout',
      'upgrade-id-index',
    ],
  },
];

/**
 * What every script but those of OWN_KEYS starts with: the constants generated from record-layout.ts, then
 * lua/record.lua (the record codec, the fenced load of a reserved job, the ready-set member).
 */
export const LUA_PRELUDE = luaConstants() + read('record');

/**
 * A script as sent to Redis: its file, with the prelude and the SHARED parts it uses inserted after the
 * file's header comment, so the source still opens with `--[[ name: …` (as MONITOR shows it).
 */
export function scriptSource(name: ScriptName): string {
  const source = read(name);
  if (OWN_KEYS[name] !== undefined) return source;
  const cut = source.indexOf(']]\n') + 3;
  const shared = SHARED.filter((part) => part.into.includes(name)).map((part) => read(part.file));
  return `${source.slice(0, cut)}${LUA_PRELUDE}${shared.join('')}${source.slice(cut)}`;
}

const SOURCES = new Map<ScriptName, string>(SCRIPT_NAMES.map((name) => [name, scriptSource(name)]));

export function defineScripts(client: RedisClient): void {
  for (const name of SCRIPT_NAMES) {
    client.defineCommand(commandName(name), { numberOfKeys: keyCount(name), lua: SOURCES.get(name)! });
  }
}

type Command = (...args: (string | number | Buffer)[]) => Promise<unknown>;

/**
 * Runs a script defined by defineScripts; the reply shape is documented in the script's header. With
 * `buffers`, bulk strings come back as Buffers (for replies that carry packed records).
 */
export function runScript(
  client: RedisClient,
  name: ScriptName,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
  buffers = false,
): Promise<unknown> {
  const command = (client as unknown as Record<string, Command>)[commandName(name) + (buffers ? 'Buffer' : '')];
  if (!command) throw new Error(`script ${name} is not defined on this client`);
  return command.call(client, ...keys, ...args);
}
