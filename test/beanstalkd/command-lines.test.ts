import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isServableTube } from '../../src/beanstalkd/tube-names.js';
import { RawSession } from './raw-socket.js';
import { startTarget, type Target } from './targets.js';

// Odd command lines (glued suffixes, extra spaces, signs, 64-bit ids, missing arguments) sent to beanstalkd
// itself and to delayq: delayq must answer each as beanstalkd does, except for the tube names
// docs/beanstalkd.md says it cannot hold, which answer BAD_FORMAT.

/** How long an answer may take before the line counts as waiting (a reserve with a timeout). */
const WAITING_MS = 400;

function numberVariants(n: string): string[] {
  return [
    n,
    ` ${n}`,
    `${n} `,
    `${n}z`,
    `-${n}`,
    `+${n}`,
    `0${n}`,
    '4294967296',
    '18446744073709551615', // the largest 64-bit id: past Number's exact integers, names no job
    '18446744073709551616',
    '',
    `\t${n}`,
    'z',
  ];
}

function commandLines(): string[] {
  const lines: string[] = [];
  const bare = ['peek-ready', 'peek-delayed', 'peek-buried', 'reserve', 'stats', 'list-tubes', 'list-tube-used'];
  for (const name of [...bare, 'list-tubes-watched', 'quit', 'put', 'peek', 'delete', 'stats-tube', 'pause-tube'])
    lines.push(name, `${name} `, `${name}x`, `${name}\t`, `${name}  `, `${name} x`);
  for (const name of [
    'peek',
    'reserve-job',
    'delete',
    'kick-job',
    'touch',
    'stats-job',
    'kick',
    'reserve-with-timeout',
  ])
    for (const v of numberVariants('999999')) lines.push(`${name} ${v}`);
  for (const v of numberVariants('999999'))
    lines.push(`release ${v} 1 0`, `release 999999 ${v} 0`, `release 999999 1 ${v}`);
  for (const v of numberVariants('999999')) lines.push(`bury ${v} 1`, `bury 999999 ${v}`);
  lines.push(
    'release 999999 1',
    'release 999999 1 0 0',
    'bury 999999',
    'bury 999999 1 1',
    'reserve-jobx 1',
    'stats-jobx 1',
    'kickx 1',
  );
  // pause-tube on `default` (a tube both always have), lifting the pause so nothing else waits.
  for (const v of ['default 0', ' default 0', 'default  0', 'default 00', 'default 0x', 'default', 'default -0'])
    lines.push(`pause-tube ${v}`);
  lines.push('pause-tube -default 0', 'pause-tube default 0 0', 'pause-tubex default 0', 'pause-tube default$ 0');
  for (const name of ['use', 'watch', 'ignore'])
    for (const v of ['a', ' a', 'a ', 'a b', '-a', '', 'a$', '_a', 'x'.repeat(128), 'x'.repeat(201), 'a\tb'])
      lines.push(`${name} ${v}`);
  lines.push('stats-tube default', 'stats-tube  default', 'stats-tube default ', 'stats-tube never-used-tube');
  for (const args of ['1 0 10 1', ' 1 0 10 1', '1  0 10 1', '1 0 10 1 ', '1 0 10 1z', '-1 0 10 1', '+1 0 10 1'])
    lines.push(`put ${args}`);
  lines.push('put 4294967296 0 10 1', 'put 1 0 0 1', 'put 1 0 10', 'put 1 0 10 1 1', 'put 1 0 4294967295 1');
  lines.push('', ' ', 'x', 'delete 1\0', 'statsstats', 'reservereserve', 'quit now');
  return lines;
}

/** The answer to one line on a connection of its own: its first line (a body's word only), or what happened. */
async function answer(port: number, line: string): Promise<string> {
  const s = await RawSession.open(port);
  try {
    // Jobs go to a tube no other line looks at, so the lines' answers do not depend on their order.
    if (line.startsWith('put')) expect(await s.ask('use puts')).toBe('USING puts');
    s.send(`${line}\r\n`);
    if (line.startsWith('put ')) s.send('x\r\n'); // a body, for the puts that take one
    let reply: string;
    try {
      reply = await s.line(WAITING_MS);
    } catch {
      return s.closed ? '(closed)' : '(waiting)';
    }
    const word = reply.split(' ')[0]!;
    if (word === 'OK') await s.take(Number(reply.split(' ')[1]) + 2);
    if (['OK', 'FOUND', 'RESERVED', 'INSERTED'].includes(word)) reply = word;
    // A put whose line was refused leaves its body to be read as the next command line.
    if (line.startsWith('put ') && word !== 'INSERTED') reply += ` / ${await s.line(WAITING_MS).catch(() => '-')}`;
    return reply;
  } finally {
    s.close();
  }
}

async function answers(port: number, lines: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += 50)
    out.push(...(await Promise.all(lines.slice(i, i + 50).map((l) => answer(port, l)))));
  return out;
}

/** A tube beanstalkd holds but delayq cannot (docs/beanstalkd.md, "Limits"): delayq answers BAD_FORMAT. */
function namesUnservableTube(line: string): boolean {
  const m = /^(use|watch|ignore|stats-tube) (.+)$/.exec(line) ?? /^pause-tube +([^ ]+) /.exec(line);
  const name = m?.[m.length - 1];
  return (
    name !== undefined && /^[A-Za-z0-9\-+/;.$_()]{1,200}$/.test(name) && !name.startsWith('-') && !isServableTube(name)
  );
}

/** The command counters of a server's stats (cmd-*). */
async function commandCounters(port: number): Promise<Map<string, number>> {
  const s = await RawSession.open(port);
  try {
    s.send('stats\r\n');
    const { body } = await s.withBody();
    const counters = body
      .toString()
      .split('\n')
      .filter((l) => l.startsWith('cmd-'))
      .map((l) => l.split(': ') as [string, string]);
    return new Map(counters.map(([name, n]) => [name, Number(n)]));
  } finally {
    s.close();
  }
}

describe('command lines as beanstalkd reads them', () => {
  const lines = commandLines();
  let beanstalkd: Target;
  let expected: string[];
  let expectedCounters: Map<string, number>;

  beforeAll(async () => {
    beanstalkd = await startTarget('beanstalkd');
    expected = await answers(beanstalkd.port, lines);
    expectedCounters = await commandCounters(beanstalkd.port);
    // beanstalkd counts the lines naming tubes delayq cannot hold; delayq refuses them (BAD_FORMAT) uncounted,
    // but for pause-tube, which both count once its name and delay were read.
    for (const line of lines.filter((l) => namesUnservableTube(l) && !l.startsWith('pause-tube'))) {
      const counter = `cmd-${line.split(' ')[0]}`;
      expectedCounters.set(counter, expectedCounters.get(counter)! - 1);
    }
  });
  afterAll(() => beanstalkd.close());

  it('beanstalkd itself answers these lines in more than one way (the cases are not all errors)', () => {
    const kinds = new Set(expected.map((e) => e.split(' ')[0]));
    for (const kind of ['BAD_FORMAT', 'UNKNOWN_COMMAND', 'NOT_FOUND', 'TIMED_OUT', '(waiting)', '(closed)', 'INSERTED'])
      expect(kinds).toContain(kind);
  });

  it.each(['sqlite', 'redis', 'journal'] as const)(
    'delayq on %s answers every line as beanstalkd does',
    async (store) => {
      const delayq = await startTarget(store);
      try {
        const got = await answers(delayq.port, lines);
        const differences = lines
          .map((line, i) => {
            const want = namesUnservableTube(line) ? 'BAD_FORMAT' : expected[i]!;
            return got[i] === want ? null : `${JSON.stringify(line)}: beanstalkd ${expected[i]}, delayq ${got[i]}`;
          })
          .filter((d) => d !== null);
        expect(differences).toEqual([]);
        // A command counts in stats once its arguments were read: the malformed ones do not.
        expect(await commandCounters(delayq.port)).toEqual(expectedCounters);
      } finally {
        await delayq.close();
      }
    },
  );
});
