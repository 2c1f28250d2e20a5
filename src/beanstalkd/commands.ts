/**
 * The meaning of each beanstalkd command line (protocol.txt of beanstalkd 1.12): the command found and its
 * arguments read as beanstalkd 1.12 does (command-line.ts), then run.
 */
import type { ConnectionState as Connection } from './connection-state.js';
import {
  bury,
  del,
  kick,
  kickJob,
  peekJob,
  peekState,
  put,
  release,
  reserve,
  reserveJob,
  touch,
} from './job-commands.js';
import { stats, statsJob, statsTube } from './stats-commands.js';
import { BAD_FORMAT, NOT_FOUND, okYaml, type Reply } from './replies.js';
import {
  commandOf,
  isBeanstalkdTubeName,
  readJobId,
  readKickBound,
  readTimeoutSeconds,
  readTubeName,
  readU32,
  type CommandName,
} from './command-line.js';
import { isServableTube } from './tube-names.js';
import { parsePutLine, type Frame } from './wire-parser.js';
import { yamlList } from './yaml.js';
import { LIMITS } from '../core/limits.js';

type Handler = (conn: Connection, rest: string) => Promise<Reply> | Reply;

/** A command without arguments: nothing may follow its name (beanstalkd checks the line's length). */
const bare =
  (run: (conn: Connection) => Promise<Reply> | Reply): Handler =>
  (conn, rest) =>
    rest === '' ? run(conn) : BAD_FORMAT;

/** A command taking one job id, the last thing on the line. */
const byJobId =
  (run: (conn: Connection, number: number) => Promise<Reply>): Handler =>
  (conn, rest) => {
    const id = readJobId(rest, true);
    return id === null ? BAD_FORMAT : run(conn, id.value);
  };

/** A command taking a tube name, the rest of the line as it is. */
const byTube =
  (run: (conn: Connection, tube: string) => Promise<Reply> | Reply): Handler =>
  (conn, tube) =>
    isBeanstalkdTubeName(tube) && isServableTube(tube) ? run(conn, tube) : BAD_FORMAT;

/**
 * `reply`, after the tube the connection just left is forgotten if that was its end (context.ts forgetGone);
 * at once when the tube has no counters to forget.
 */
function afterLeaving(c: Connection, tube: string, reply: string): Reply | Promise<Reply> {
  if (!c.ctx.tubes.has(tube)) return reply;
  return c.ctx.forgetGone([tube]).then(() => reply);
}

/** Each command's handler; its arguments are read as beanstalkd reads them (command-line.ts). */
const COMMANDS: Record<Exclude<CommandName, 'put' | 'quit'>, Handler> = {
  use: byTube((c, tube) => {
    c.ctx.order.made(tube);
    const left = c.used;
    c.used = tube;
    return afterLeaving(c, left, `USING ${tube}\r\n`);
  }),
  watch: byTube((c, tube) => {
    c.ctx.order.made(tube);
    if (!c.watched.includes(tube)) c.watched.push(tube);
    return `WATCHING ${c.watched.length}\r\n`;
  }),
  ignore: byTube((c, tube) => {
    if (!c.watched.includes(tube)) return `WATCHING ${c.watched.length}\r\n`;
    if (c.watched.length === 1) return 'NOT_IGNORED\r\n';
    // beanstalkd moves its last watched tube into the gap, which list-tubes-watched shows.
    const watched = [...c.watched];
    const last = watched.pop()!;
    const at = watched.indexOf(tube);
    if (at >= 0) watched[at] = last;
    c.watched = watched;
    return afterLeaving(c, tube, `WATCHING ${c.watched.length}\r\n`);
  }),
  reserve: bare((c) => reserve(c, null)),
  'reserve-with-timeout': (c, rest) => {
    const seconds = readTimeoutSeconds(rest);
    if (seconds === null) return BAD_FORMAT;
    return reserve(c, seconds === Infinity ? null : seconds);
  },
  'reserve-job': byJobId(reserveJob),
  delete: byJobId(del),
  release: (c, rest) => {
    const id = readJobId(rest, false);
    const pri = id && readU32(id.rest, false);
    const delay = pri && readU32(pri.rest, true);
    return delay ? release(c, id!.value, pri!.value, delay.value) : BAD_FORMAT;
  },
  bury: (c, rest) => {
    const id = readJobId(rest, false);
    const pri = id && readU32(id.rest, true);
    return pri ? bury(c, id!.value, pri.value) : BAD_FORMAT;
  },
  touch: byJobId(touch),
  peek: byJobId(peekJob),
  'peek-ready': bare((c) => peekState(c, 'ready')),
  'peek-delayed': bare((c) => peekState(c, 'delayed')),
  'peek-buried': bare((c) => peekState(c, 'dead')),
  kick: (c, rest) => {
    const bound = readKickBound(rest);
    return bound === null ? BAD_FORMAT : kick(c, bound);
  },
  'kick-job': byJobId(kickJob),
  'stats-job': byJobId(statsJob),
  'stats-tube': byTube(statsTube),
  stats: bare(stats),
  'list-tubes': bare(async (c) =>
    okYaml(yamlList(c.ctx.order.ordered(c.ctx.liveTubes(await c.ctx.service.topics.stats())))),
  ),
  'list-tube-used': bare((c) => `USING ${c.used}\r\n`),
  'list-tubes-watched': bare((c) => okYaml(yamlList(c.watched))),
  'pause-tube': (c, rest) => {
    const tube = readTubeName(rest);
    const delay = tube && readU32(tube.rest, true);
    if (!delay) return BAD_FORMAT;
    if (isBeanstalkdTubeName(tube!.value) && isServableTube(tube!.value)) return pauseTube(c, tube!.value, delay.value);
    c.ctx.count('pause-tube'); // beanstalkd counts it before checking the name
    return BAD_FORMAT;
  },
};

async function pauseTube(c: Connection, tube: string, seconds: number): Promise<Reply> {
  // As beanstalkd: only a tube that exists (jobs, or a connection using or watching it) can be paused.
  if (!c.ctx.liveTubes(await c.ctx.service.topics.stats()).has(tube)) return NOT_FOUND;
  const t = c.ctx.tube(tube);
  t.pauses++;
  t.pauseSeconds = seconds;
  // beanstalkd pauses for `delay` seconds; 0 lifts the pause at once. A pause beyond delayq's longest delay
  // is cut to it, as a put's delay is.
  if (seconds === 0) await c.ctx.service.topics.resume(tube);
  else await c.ctx.service.topics.pause(tube, { delayMs: Math.min(seconds * 1000, LIMITS.maxDelayMs) });
  return 'PAUSED\r\n';
}

/** The command a line names (null: unknown), as connection.ts needs it to order and group commands. */
export function commandNameOf(frame: Frame): CommandName | null {
  if (frame.kind === 'line') return commandOf(frame.line)?.name ?? null;
  return frame.kind === 'overlong' ? null : 'put';
}

export function runCommand(conn: Connection, frame: Frame): Promise<Reply> | Reply {
  switch (frame.kind) {
    case 'overlong':
      return BAD_FORMAT;
    case 'too-big':
      conn.ctx.count('put');
      return 'JOB_TOO_BIG\r\n';
    case 'put':
      conn.ctx.count('put');
      return frame.body === null ? 'EXPECTED_CRLF\r\n' : put(conn, frame.args, frame.body);
    case 'line': {
      // A NUL inside the line: beanstalkd's check for "possible maliciousness".
      if (frame.line.includes('\0')) return BAD_FORMAT;
      const command = commandOf(frame.line);
      if (!command) return 'UNKNOWN_COMMAND\r\n';
      if (command.name === 'quit') return 'quit';
      // A put line the wire parser could not take: its arguments are malformed, or something follows them
      // (beanstalkd counts the put in that case: it read the four numbers).
      if (command.name === 'put') {
        if (parsePutLine(frame.line)) conn.ctx.count('put');
        return BAD_FORMAT;
      }
      const reply = COMMANDS[command.name](conn, command.rest);
      // As in beanstalkd, a command counts in stats once its arguments were read (a malformed one does not).
      if (reply !== BAD_FORMAT) conn.ctx.count(command.name);
      return reply;
    }
  }
}
