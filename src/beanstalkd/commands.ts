/**
 * The meaning of each beanstalkd command line (protocol.txt of beanstalkd 1.12), dispatched by name.
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
import { BAD_FORMAT, okYaml, u32, type Reply } from './replies.js';
import { isServableTube } from './tube-names.js';
import type { Frame } from './wire-parser.js';
import { yamlList } from './yaml.js';

type Handler = (conn: Connection, args: string[]) => Promise<Reply> | Reply;

/** Each command with the number of arguments it takes. */
const COMMANDS: Record<string, [arity: number, handler: Handler]> = {
  use: [
    1,
    (c, [tube]) => {
      if (!isServableTube(tube!)) return BAD_FORMAT;
      c.used = tube!;
      return `USING ${tube}\r\n`;
    },
  ],
  watch: [
    1,
    (c, [tube]) => {
      if (!isServableTube(tube!)) return BAD_FORMAT;
      if (!c.watched.includes(tube!)) c.watched.push(tube!);
      return `WATCHING ${c.watched.length}\r\n`;
    },
  ],
  ignore: [
    1,
    (c, [tube]) => {
      if (!isServableTube(tube!)) return BAD_FORMAT;
      if (!c.watched.includes(tube!)) return `WATCHING ${c.watched.length}\r\n`;
      if (c.watched.length === 1) return 'NOT_IGNORED\r\n';
      c.watched = c.watched.filter((t) => t !== tube);
      return `WATCHING ${c.watched.length}\r\n`;
    },
  ],
  reserve: [0, (c) => reserve(c, null)],
  'reserve-with-timeout': [
    1,
    (c, [s]) => {
      const seconds = u32(s);
      return seconds === null ? BAD_FORMAT : reserve(c, seconds);
    },
  ],
  'reserve-job': [1, (c, [n]) => withNumber(n, (id) => reserveJob(c, id))],
  delete: [1, (c, [n]) => withNumber(n, (num) => del(c, num))],
  release: [
    3,
    (c, [n, pri, delay]) => {
      const [num, p, d] = [u32(n), u32(pri), u32(delay)];
      return num === null || p === null || d === null ? BAD_FORMAT : release(c, num, p, d);
    },
  ],
  bury: [
    2,
    (c, [n, pri]) => {
      const [num, p] = [u32(n), u32(pri)];
      return num === null || p === null ? BAD_FORMAT : bury(c, num, p);
    },
  ],
  touch: [1, (c, [n]) => withNumber(n, (num) => touch(c, num))],
  peek: [1, (c, [n]) => withNumber(n, (num) => peekJob(c, num))],
  'peek-ready': [0, (c) => peekState(c, 'ready')],
  'peek-delayed': [0, (c) => peekState(c, 'delayed')],
  'peek-buried': [0, (c) => peekState(c, 'dead')],
  kick: [
    1,
    (c, [bound]) => {
      const b = u32(bound);
      return b === null ? BAD_FORMAT : kick(c, b);
    },
  ],
  'kick-job': [1, (c, [n]) => withNumber(n, (num) => kickJob(c, num))],
  'stats-job': [1, (c, [n]) => withNumber(n, (num) => statsJob(c, num))],
  'stats-tube': [1, (c, [tube]) => (isServableTube(tube!) ? statsTube(c, tube!) : BAD_FORMAT)],
  stats: [0, (c) => stats(c)],
  'list-tubes': [
    0,
    async (c) => {
      const topics = (await c.ctx.service.topics.stats()).map((s) => s.topic);
      const local = [...c.ctx.connections].flatMap((x) => [x.used, ...x.watched]);
      return okYaml(yamlList([...new Set(['default', ...topics, ...local])].sort()));
    },
  ],
  'list-tube-used': [0, (c) => `USING ${c.used}\r\n`],
  'list-tubes-watched': [0, (c) => okYaml(yamlList(c.watched))],
  'pause-tube': [
    2,
    async (c, [tube, delay]) => {
      const seconds = u32(delay);
      if (!isServableTube(tube!) || seconds === null) return BAD_FORMAT;
      const t = c.ctx.tube(tube!);
      t.pauses++;
      t.pauseSeconds = seconds;
      // beanstalkd pauses for `delay` seconds; 0 lifts the pause at once.
      if (seconds === 0) await c.ctx.service.topics.resume(tube!);
      else await c.ctx.service.topics.pause(tube!, { delayMs: seconds * 1000 });
      return 'PAUSED\r\n';
    },
  ],
  quit: [0, () => 'quit'],
};

function withNumber(text: string | undefined, then: (n: number) => Promise<Reply>): Promise<Reply> | Reply {
  const n = u32(text);
  return n === null ? BAD_FORMAT : then(n);
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
      const [name, ...args] = frame.line.split(' ');
      if (name === 'put') return BAD_FORMAT; // a put line that did not parse
      const command = COMMANDS[name!];
      // beanstalkd matches "delete " with its space: a command missing all its arguments is unknown.
      if (!command || (command[0] > 0 && args.length === 0)) return 'UNKNOWN_COMMAND\r\n';
      conn.ctx.count(name!);
      if (args.length !== command[0] || args.some((a) => a === '')) return BAD_FORMAT;
      return command[1](conn, args);
    }
  }
}
