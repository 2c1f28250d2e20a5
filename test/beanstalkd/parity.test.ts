import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/http-server.js';
import { RawSession } from './raw-socket.js';
import { startTarget, type Target } from './targets.js';

// Byte-level sessions against delayq on each shape and against Debian's beanstalkd: the same answers for
// list-tubes' order, a quit while holding a job, the longest pause, tube names of 200 bytes and kick's order.
describe.each(['sqlite', 'redis', 'journal', 'beanstalkd'] as const)('beanstalkd parity against %s', (name) => {
  let target: Target;
  const s = Math.random().toString(36).slice(2, 8);
  const sessions: RawSession[] = [];
  const open = async (options: { allowHalfOpen?: boolean } = {}): Promise<RawSession> => {
    const session = await RawSession.open(target.port, options);
    sessions.push(session);
    return session;
  };
  const listTubes = async (w: RawSession): Promise<string[]> => {
    w.send('list-tubes\r\n');
    return (await w.withBody()).body.toString().split('\n').slice(1, -1);
  };
  const field = async (w: RawSession, command: string, key: string): Promise<string | undefined> => {
    const line = await w.ask(command);
    if (!line.startsWith('OK ')) return line;
    const yaml = (await w.take(Number(line.split(' ')[1]) + 2)).toString();
    return new RegExp(`\\n${key}: (\\S+)`).exec(yaml)?.[1];
  };

  beforeAll(async () => {
    target = await startTarget(name);
  });
  afterAll(async () => {
    for (const session of sessions) session.close();
    await target.close();
  });

  // First in the file: the target holds no other tube yet.
  it('list-tubes answers in the order tubes were made; a gone tube leaves its place to the last one', async () => {
    const w = await open();
    const other = await open();
    const ids: Record<string, string> = {};
    for (const tube of [`zeta-${s}`, `alpha-${s}`, `mid-${s}`]) {
      expect(await w.ask(`use ${tube}`)).toBe(`USING ${tube}`);
      ids[tube] = (await w.ask('put 0 100 10 1\r\nx')).split(' ')[1]!;
    }
    expect(await w.ask('use default')).toBe('USING default');
    expect(await listTubes(w)).toEqual(['- default', `- zeta-${s}`, `- alpha-${s}`, `- mid-${s}`]);
    // zeta ceases to exist (its job deleted by a connection on no tube of it): mid takes its place.
    expect(await other.ask(`delete ${ids[`zeta-${s}`]}`)).toBe('DELETED');
    expect(await listTubes(w)).toEqual(['- default', `- mid-${s}`, `- alpha-${s}`]);
    expect(await w.ask(`watch new-${s}`)).toBe('WATCHING 2');
    expect(await w.ask(`watch alpha-${s}`)).toBe('WATCHING 3'); // an existing tube keeps its place
    expect(await listTubes(w)).toEqual(['- default', `- mid-${s}`, `- alpha-${s}`, `- new-${s}`]);
    for (const tube of [`alpha-${s}`, `mid-${s}`]) expect(await w.ask(`delete ${ids[tube]}`)).toBe('DELETED');
  });

  it('quit hands back the jobs the connection holds at once, though the client keeps its socket open', async () => {
    const w = await open();
    const holder = await open({ allowHalfOpen: true });
    const tube = `quit-${s}`;
    expect(await w.ask(`use ${tube}`)).toBe(`USING ${tube}`);
    const id = (await w.ask('put 0 0 60 1\r\nq')).split(' ')[1]!;
    expect(await holder.ask(`reserve-job ${id}`)).toBe(`RESERVED ${id} 1`);
    expect(await holder.line()).toBe('q');
    holder.send('quit\r\n'); // and nothing more: the client's side stays open
    await waitFor(() => holder.ended, 'the server to end the connection', 3000);
    await waitFor(
      async () => (await field(w, `stats-job ${id}`, 'state')) === 'ready',
      'the job held by the quitting connection ready again',
      3000,
    );
    expect(await w.ask(`delete ${id}`)).toBe('DELETED');
  });

  it('pause-tube takes the longest delay the protocol has (cut to delayq longest)', async () => {
    const w = await open();
    const tube = `pause-${s}`;
    expect(await w.ask(`watch ${tube}`)).toBe('WATCHING 2');
    expect(await w.ask(`pause-tube ${tube} 4294967295`)).toBe('PAUSED');
    expect(await field(w, `stats-tube ${tube}`, 'pause')).toBe('4294967295');
    expect(await w.ask(`pause-tube ${tube} 0`)).toBe('PAUSED');
    expect(await field(w, `stats-tube ${tube}`, 'pause')).toBe('0');
  });

  it('takes tube names of up to 200 bytes, and refuses 201', async () => {
    const w = await open();
    const tube = `long-${s}-`.padEnd(200, 'x');
    expect(await w.ask(`use ${tube}`)).toBe(`USING ${tube}`);
    expect(await w.ask(`watch ${tube}`)).toBe('WATCHING 2');
    const id = (await w.ask('put 0 0 10 2\r\nhi')).split(' ')[1]!;
    expect(await w.ask('reserve-with-timeout 0')).toBe(`RESERVED ${id} 2`);
    expect(await w.line()).toBe('hi');
    expect(await field(w, `stats-job ${id}`, 'tube')).toBe(tube);
    expect(await field(w, `stats-tube ${tube}`, 'name')).toBe(tube);
    expect(await w.ask(`delete ${id}`)).toBe('DELETED');
    expect(await w.ask(`use ${tube}y`)).toBe('BAD_FORMAT');
    expect(await w.ask(`watch ${tube}y`)).toBe('BAD_FORMAT');
  });

  it('kick of delayed jobs kicks the earliest due first', async () => {
    const w = await open();
    const tube = `kick-${s}`;
    expect(await w.ask(`use ${tube}`)).toBe(`USING ${tube}`);
    const id: Record<string, string> = {};
    for (const [label, delay] of [
      ['d30', 30],
      ['d10', 10],
      ['d20', 20],
    ] as const)
      id[label] = (await w.ask(`put 1024 ${delay} 10 3\r\n${label}`)).split(' ')[1]!;
    expect(await w.ask('kick 1')).toBe('KICKED 1');
    expect(await w.ask('peek-ready')).toBe(`FOUND ${id['d10']} 3`);
    expect(await w.line()).toBe('d10');
    expect(await w.ask('kick 1')).toBe('KICKED 1');
    const states = [];
    for (const label of ['d30', 'd10', 'd20']) states.push(await field(w, `stats-job ${id[label]}`, 'state'));
    expect(states).toEqual(['delayed', 'ready', 'ready']);
    for (const label of ['d30', 'd10', 'd20']) expect(await w.ask(`delete ${id[label]}`)).toBe('DELETED');
  });
});
