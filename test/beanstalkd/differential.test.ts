import { beforeAll, describe, expect, it } from 'vitest';
import { RawSession } from './raw-socket.js';
import { startTarget } from './targets.js';

// Seeded random sessions over two connections, each sent command by command to beanstalkd and to delayq:
// every answer must be the same, job numbers compared by the order they were given in. Left out are what
// docs/beanstalkd.md names as different: kick and kick-job (a kicked job is due from the kick, so it may be
// served in another order) and priorities above 65535. stats-job is compared on every field but id, age,
// time-left and file (numbers and clocks), and each session ends with stats, equal too but for the
// process's own fields.

const SESSIONS = 8;
/**
 * The fields of stats that two fresh servers given the same session must agree on (not total-connections:
 * the harness's check that beanstalkd is listening is a connection of its own).
 */
const SAME_STATS =
  /^(cmd-(?!kick)|current-jobs-|total-jobs|job-timeouts|current-(tubes|connections|producers|workers|waiting))/;
const COMMANDS_PER_SESSION = 80;
const TUBES = ['default', 'a', 'b'];
const BODIES = ['x', 'hello', '', 'a b c', '{"j":1}'];
const PRIORITIES = [0, 1, 5, 1024, 65535];

/** A small linear congruential generator: the same seed gives the same session on every run. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/**
 * One command of a session: the connection it goes on (each session has two), and its line, where `job(k)`
 * stands for the k-th job number a put was given (or an unknown one).
 */
interface Step {
  on: 0 | 1;
  line: (job: (k: number) => string) => string;
}

function session(seed: number): Step[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const anyJob = () => Math.floor(next() * 12); // puts so far and beyond: beyond names no job
  const steps: Step[] = [];
  const add = (line: Step['line']): void => void steps.push({ on: next() < 0.5 ? 0 : 1, line });
  for (let i = 0; i < COMMANDS_PER_SESSION; i++) {
    const k = anyJob();
    const kind = pick([
      'put',
      'put',
      'put',
      'reserve',
      'reserve',
      'delete',
      'release',
      'bury',
      'touch',
      'peek',
      'peek-ready',
      'peek-delayed',
      'peek-buried',
      'use',
      'watch',
      'ignore',
      'list-tube-used',
      'list-tubes-watched',
      'stats-job',
      'stats-tube',
      'pause-tube',
    ] as const);
    switch (kind) {
      case 'put': {
        const body = pick(BODIES);
        const line = `put ${pick(PRIORITIES)} ${pick([0, 0, 100])} ${pick([5, 10])} ${body.length}\r\n${body}`;
        add(() => line);
        break;
      }
      case 'reserve':
        add(() => 'reserve-with-timeout 0');
        break;
      case 'release': {
        const rest = `${pick(PRIORITIES)} ${pick([0, 0, 100])}`;
        add((job) => `release ${job(k)} ${rest}`);
        break;
      }
      case 'bury': {
        const pri = pick(PRIORITIES);
        add((job) => `bury ${job(k)} ${pri}`);
        break;
      }
      case 'delete':
      case 'touch':
      case 'peek':
      case 'stats-job':
        add((job) => `${kind} ${job(k)}`);
        break;
      case 'use':
      case 'watch':
      case 'ignore':
      case 'stats-tube': {
        const tube = pick(TUBES);
        add(() => `${kind} ${tube}`);
        break;
      }
      case 'pause-tube': {
        // A pause of 0 s (beanstalkd: 1 ns) answers as any pause but holds no reserve of the session back.
        const tube = pick(TUBES);
        add(() => `pause-tube ${tube} 0`);
        break;
      }
      default:
        add(() => kind);
    }
  }
  return steps;
}

/** A reply as compared: job numbers as their place among the puts' numbers; stats-job's fields that do not tick. */
async function reply(s: RawSession, numbers: readonly string[]): Promise<string> {
  const line = await s.line();
  const withBody = /^(?:RESERVED|FOUND) (\d+) (\d+)$/.exec(line) ?? /^OK (\d+)$/.exec(line);
  if (!withBody) return line;
  const bytes = Number(withBody[withBody.length - 1]);
  const body = (await s.take(bytes + 2)).subarray(0, bytes).toString('latin1');
  if (line.startsWith('OK')) {
    if (/\nname: /.test(body)) return `OK ${body}`; // stats-tube
    if (!/\nstate: /.test(body)) return `OK ${body}`; // a list of tubes
    const field = (name: string) => new RegExp(`\\n${name}: ([^\\n]*)`).exec(body)?.[1];
    return `OK ${['tube', 'state', 'pri', 'delay', 'ttr', 'reserves', 'timeouts', 'releases', 'buries', 'kicks'].map((f) => `${f}=${field(f)}`).join(' ')}`;
  }
  const [word, number] = line.split(' ');
  return `${word} #${numbers.indexOf(number!)} ${body}`;
}

/** Runs one session against a server: every reply, as compared. */
async function run(port: number, steps: readonly Step[]): Promise<string[]> {
  const connections = [await RawSession.open(port), await RawSession.open(port)] as const;
  const numbers: string[] = [];
  const out: string[] = [];
  try {
    for (const step of steps) {
      const s = connections[step.on];
      const line = step.line((k) => numbers[k] ?? '999999');
      // as compared, a job number in the command is its place among the puts' (delayq's Redis numbers are large)
      const shown = step.line((k) => (numbers[k] === undefined ? '999999' : `#${k}`));
      s.send(`${line}\r\n`);
      const answer = await reply(s, numbers);
      const inserted = /^INSERTED (\d+)$/.exec(answer);
      if (inserted) numbers.push(inserted[1]!);
      out.push(`[${step.on}] ${shown.split('\r\n')[0]} => ${inserted ? `INSERTED #${numbers.length - 1}` : answer}`);
    }
    // The session's stats (a fresh server each: only this session counts), but for the process's own fields
    // (pid, version, rusage…) and max-job-size.
    connections[0].send('stats\r\n');
    const { body } = await connections[0].withBody();
    out.push(
      ...body
        .toString()
        .split('\n')
        .filter((l) => SAME_STATS.test(l)),
    );
  } finally {
    for (const c of connections) c.close();
  }
  return out;
}

describe('random sessions answered as beanstalkd answers them', () => {
  const sessions = Array.from({ length: SESSIONS }, (_, i) => session(1000 + i));
  let expected: string[][];

  beforeAll(async () => {
    expected = [];
    // A fresh beanstalkd per session: job numbers and tubes start over, as they do on each delayq below.
    for (const steps of sessions) {
      const beanstalkd = await startTarget('beanstalkd');
      try {
        expected.push(await run(beanstalkd.port, steps));
      } finally {
        await beanstalkd.close();
      }
    }
  }, 120_000);

  it('the sessions reach every state (the comparison is not of empty answers)', () => {
    const all = expected.flat().join('\n');
    for (const answer of [
      'RESERVED #',
      'FOUND #',
      'DELETED',
      'RELEASED',
      'BURIED',
      'TOUCHED',
      'state=delayed',
      'name: a',
    ])
      expect(all).toContain(answer);
  });

  describe.each(['sqlite', 'redis'] as const)('delayq on %s', (store) => {
    it.each(sessions.map((steps, i) => [i, steps] as const))(
      'session %i',
      async (i, steps) => {
        const delayq = await startTarget(store);
        try {
          expect(await run(delayq.port, steps)).toEqual(expected[i]);
        } finally {
          await delayq.close();
        }
      },
      60_000,
    );
  });
});
