import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawSession } from './raw-socket.js';
import { startTarget, type Target } from './targets.js';

/** The reply lines of `n` commands (a RESERVED or FOUND line with its body after a space). */
async function replies(s: RawSession, n: number): Promise<string[]> {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const line = await s.line();
    if (line.startsWith('RESERVED ') || line.startsWith('FOUND ')) {
      const bytes = Number(line.split(' ')[2]);
      lines.push(`${line} ${(await s.take(bytes + 2)).subarray(0, bytes).toString('utf8')}`);
    } else lines.push(line);
  }
  return lines;
}

const puts = (bodies: string[]): string =>
  bodies.map((b) => `put 100 0 30 ${Buffer.byteLength(b)}\r\n${b}\r\n`).join('');

// Commands pipelined in one write (delayq runs runs of puts, reserves and deletes as one): each answered in
// command order, as beanstalkd itself answers them.
describe.each(['sqlite', 'redis', 'beanstalkd'] as const)('pipelined commands against %s', (name) => {
  let target: Target;
  let s: RawSession;
  const tube = `pl-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    target = await startTarget(name);
    s = await RawSession.open(target.port);
    s.send(`use ${tube}\r\nwatch ${tube}\r\nignore default\r\n`);
    expect(await replies(s, 3)).toEqual([`USING ${tube}`, 'WATCHING 2', 'WATCHING 1']);
  });
  afterAll(async () => {
    s.close();
    await target.close();
  });

  it('a burst of puts, then of reserves, then of deletes with unknown ids among them, each answered in order', async () => {
    const bodies = Array.from({ length: 30 }, (_, i) => `job ${i} ü`);
    s.send(puts(bodies));
    const inserted = await replies(s, 30);
    const ids = inserted.map((l) => Number(/^INSERTED (\d+)$/.exec(l)?.[1]));
    expect(ids.every((id) => id > 0)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b)); // numbered in command order

    // Equal priorities: reserved in put order; the 31st finds nothing.
    s.send('reserve-with-timeout 0\r\n'.repeat(31));
    expect(await replies(s, 31)).toEqual([
      ...ids.map((id, i) => `RESERVED ${id} ${Buffer.byteLength(bodies[i]!)} ${bodies[i]}`),
      'TIMED_OUT',
    ]);

    // An unknown number and a repeated one mid-run: NOT_FOUND for those only.
    const order = [...ids.slice(0, 10), 4_000_000_000, ...ids.slice(10, 20), ids[3]!, ...ids.slice(20)];
    s.send(order.map((id) => `delete ${id}\r\n`).join(''));
    expect(await replies(s, order.length)).toEqual(
      order.map((id, i) => (id === 4_000_000_000 || (i > 3 && id === ids[3]) ? 'NOT_FOUND' : 'DELETED')),
    );
    s.send(`stats-tube ${tube}\r\n`);
    const { body } = await s.withBody();
    expect(body.toString()).toMatch(/current-jobs-ready: 0\n/);
    expect(body.toString()).toMatch(/current-jobs-reserved: 0\n/);
  });

  it('a mixed pipeline keeps command order across runs and other commands', async () => {
    s.send(
      `${puts(['a', 'b'])}list-tube-used\r\n${puts(['c'])}` +
        'reserve-with-timeout 0\r\nreserve-with-timeout 0\r\npeek-ready\r\ndelete 4000000000\r\n' +
        'reserve-with-timeout 0\r\nreserve-with-timeout 0\r\nbogus\r\n',
    );
    const got = await replies(s, 11);
    const [a, b] = got.slice(0, 2).map((l) => Number(l.split(' ')[1]));
    const c = Number(got[3]!.split(' ')[1]);
    expect(got[2]).toBe(`USING ${tube}`);
    expect(got.slice(4, 6)).toEqual([`RESERVED ${a} 1 a`, `RESERVED ${b} 1 b`]);
    expect(got[6]).toBe(`FOUND ${c} 1 c`);
    expect(got.slice(7)).toEqual(['NOT_FOUND', `RESERVED ${c} 1 c`, 'TIMED_OUT', 'UNKNOWN_COMMAND']);
    // Commands on one job run one after the other, whatever runs they are in.
    s.send(`delete ${a}\r\ndelete ${b}\r\nrelease ${c} 5 0\r\ndelete ${c}\r\ndelete ${c}\r\n`);
    expect(await replies(s, 5)).toEqual(['DELETED', 'DELETED', 'RELEASED', 'DELETED', 'NOT_FOUND']);
  });

  it('commands after a quit in the same write are not run', async () => {
    const q = await RawSession.open(target.port);
    q.send(`use ${tube}\r\n${puts(['kept'])}quit\r\n${puts(['never'])}`);
    expect(await q.line()).toBe(`USING ${tube}`);
    expect(await q.line()).toMatch(/^INSERTED \d+$/);
    await expect(q.line()).rejects.toThrow('closed');
    s.send('reserve-with-timeout 0\r\nreserve-with-timeout 0\r\n');
    const got = await replies(s, 2);
    expect(got[0]).toMatch(/^RESERVED \d+ 4 kept$/);
    expect(got[1]).toBe('TIMED_OUT');
    s.send(`delete ${got[0]!.split(' ')[1]}\r\n`);
    expect(await s.line()).toBe('DELETED');
  });
});

// What the batching is for: a pipelined run reaches the store as one call, not one per command.
describe.each(['sqlite', 'redis'] as const)('pipelined runs against delayq on %s', (name) => {
  let target: Target;
  const tube = `plc-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    target = await startTarget(name);
  });
  afterAll(async () => {
    await target.close();
  });

  it('50 puts are one push, 50 reserves one reserve; a client gone leaves none of them reserved', async () => {
    const calls = new Map<string, number>();
    target.http!.service.events.on('storeCall', ({ operation }) =>
      calls.set(operation, (calls.get(operation) ?? 0) + 1),
    );
    const s = await RawSession.open(target.port);
    s.send(`use ${tube}\r\nwatch ${tube}\r\nignore default\r\n`);
    await replies(s, 3);
    calls.clear();
    s.send(puts(Array.from({ length: 50 }, (_, i) => `p${i}`)));
    expect((await replies(s, 50)).every((l) => l.startsWith('INSERTED '))).toBe(true);
    expect(calls.get('pushMany')).toBe(1);
    s.send('reserve-with-timeout 0\r\n'.repeat(50));
    expect((await replies(s, 50)).every((l) => l.startsWith('RESERVED '))).toBe(true);
    expect(calls.get('reserve')).toBe(1);
    s.close();
    const service = target.http!.service;
    await waitForCount(async () => (await service.topics.stats()).find((t) => t.topic === tube)?.counts.ready ?? 0, 50);
    expect((await service.topics.stats()).find((t) => t.topic === tube)?.counts.reserved).toBe(0);
  });
});

async function waitForCount(read: () => Promise<number>, want: number): Promise<void> {
  const giveUp = Date.now() + 10_000;
  let got = await read();
  while (got !== want && Date.now() < giveUp) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    got = await read();
  }
  expect(got).toBe(want);
}
