import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/http-server.js';
import { RawSession } from './raw-socket.js';
import { startTarget, type Target } from './targets.js';

// Byte-level sessions against delayq on each store and against beanstalkd itself: the same answers.
describe.each(['sqlite', 'redis', 'beanstalkd'] as const)('the beanstalkd wire protocol against %s', (name) => {
  let target: Target;
  let s: RawSession;
  const tube = `raw-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    target = await startTarget(name);
    s = await RawSession.open(target.port);
    expect(await s.ask(`use ${tube}`)).toBe(`USING ${tube}`);
    expect(await s.ask(`watch ${tube}`)).toBe('WATCHING 2');
    expect(await s.ask('ignore default')).toBe('WATCHING 1');
  });
  afterAll(async () => {
    s.close();
    await target.close();
  });

  it('answers garbage, malformed arguments and bad tube names with the documented errors', async () => {
    expect(await s.ask('hello there')).toBe('UNKNOWN_COMMAND');
    expect(await s.ask('put a b c d')).toBe('BAD_FORMAT');
    expect(await s.ask('delete abc')).toBe('BAD_FORMAT');
    expect(await s.ask('delete')).toBe('UNKNOWN_COMMAND');
    expect(await s.ask('delete 1 2')).toBe('BAD_FORMAT');
    expect(await s.ask('delete 4000000000')).toBe('NOT_FOUND');
    expect(await s.ask('use -starts-with-hyphen')).toBe('BAD_FORMAT');
    expect(await s.ask(`ignore ${tube}`)).toBe('NOT_IGNORED');
    expect(await s.ask('reserve-with-timeout 0')).toBe('TIMED_OUT');
    expect(await s.ask('peek-ready')).toBe('NOT_FOUND');
    expect(await s.ask('list-tube-used')).toBe(`USING ${tube}`);
  });

  it('an overlong line is BAD_FORMAT, the rest of it dropped', async () => {
    s.send(`${'x'.repeat(224)}list-tube-used\r\n`);
    expect(await s.line()).toBe('BAD_FORMAT');
    expect(await s.ask('list-tube-used')).toBe(`USING ${tube}`);
  });

  it('a body not followed by CRLF, or longer than announced, is EXPECTED_CRLF; nothing is stored', async () => {
    expect(await s.ask('put 0 0 10 5\r\nhelloXX')).toBe('EXPECTED_CRLF');
    expect(await s.line()).toBe('UNKNOWN_COMMAND'); // the CRLF after "XX" is an empty command line
    s.send('put 0 0 10 5\r\nhello world\r\n');
    expect(await s.line()).toBe('EXPECTED_CRLF');
    expect(await s.line()).toBe('UNKNOWN_COMMAND'); // "orld"
    expect(await s.ask('reserve-with-timeout 0')).toBe('TIMED_OUT');
  });

  it('a body over max-job-size is JOB_TOO_BIG, its bytes skipped', async () => {
    const tooBig = 2 * 1024 * 1024;
    s.send(
      Buffer.concat([
        Buffer.from(`put 0 0 10 ${tooBig}\r\n`),
        Buffer.alloc(tooBig, 0x61),
        Buffer.from('\r\nlist-tube-used\r\n'),
      ]),
    );
    expect(await s.line()).toBe('JOB_TOO_BIG');
    expect(await s.line()).toBe(`USING ${tube}`);
  });

  it('bodies are bytes: CRLF inside and invalid UTF-8 come back exactly', async () => {
    const body = Buffer.from([0x68, 0x0d, 0x0a, 0xff, 0x00, 0xc3, 0x28, 0x0d, 0x0a]);
    const inserted = await s.ask(
      Buffer.concat([Buffer.from(`put 7 0 10 ${body.length}\r\n`), body, Buffer.from('\r\n')]),
    );
    expect(inserted).toMatch(/^INSERTED \d+$/);
    const id = inserted.split(' ')[1];
    s.send('reserve\r\n');
    const reserved = await s.withBody();
    expect(reserved.line).toBe(`RESERVED ${id} ${body.length}`);
    expect(reserved.body.equals(body)).toBe(true);
    expect(await s.ask(`delete ${id}`)).toBe('DELETED');
  });

  it('a client that vanishes while waiting in reserve takes no job with it', async () => {
    const waiter = await RawSession.open(target.port);
    waiter.send(`watch ${tube}\r\nreserve\r\n`);
    expect(await waiter.line()).toBe('WATCHING 2');
    waiter.close();
    // Wait until the server noticed the client left (no one waits on the tube), not for a fixed time.
    await waitFor(async () => {
      const line = await s.ask(`stats-tube ${tube}`);
      if (line === 'NOT_FOUND') return true;
      const yaml = (await s.take(Number(line.split(' ')[1]) + 2)).toString('latin1');
      return /current-waiting: 0\b/.test(yaml);
    }, 'the server to notice the client left');
    const inserted = await s.ask('put 0 0 10 2\r\nhi');
    expect(inserted).toMatch(/^INSERTED \d+$/);
    s.send('reserve-with-timeout 5\r\n');
    const got = await s.withBody();
    expect(got.line).toBe(`RESERVED ${inserted.split(' ')[1]} 2`);
    expect(await s.ask(`delete ${inserted.split(' ')[1]}`)).toBe('DELETED');
  });

  it('DEADLINE_SOON: a reserve while holding a job whose TTR ends within a second', async () => {
    const inserted = await s.ask('put 0 0 1 4\r\nsoon');
    const id = inserted.split(' ')[1];
    s.send('reserve\r\n');
    expect((await s.withBody()).line).toBe(`RESERVED ${id} 4`);
    expect(await s.ask('reserve-with-timeout 5')).toBe('DEADLINE_SOON');
    expect(await s.ask(`delete ${id}`)).toBe('DELETED');
  });

  it('within the safety margin a reserve still gets a ready job; DEADLINE_SOON only when none is', async () => {
    const w = await RawSession.open(target.port);
    const soon = `soon-${Math.random().toString(36).slice(2, 8)}`;
    try {
      for (const [line, reply] of [
        [`use ${soon}`, `USING ${soon}`],
        [`watch ${soon}`, 'WATCHING 2'],
        ['ignore default', 'WATCHING 1'],
      ] as const)
        expect(await w.ask(line)).toBe(reply);
      const ids = [await w.ask('put 0 0 1 1\r\na'), await w.ask('put 0 0 1 1\r\nb')].map((l) => l.split(' ')[1]);
      w.send('reserve\r\n');
      expect((await w.withBody()).line).toBe(`RESERVED ${ids[0]} 1`);
      // Holding a job whose 1 s TTR is all safety margin, with another ready: that one is handed out.
      w.send('reserve-with-timeout 2\r\n');
      expect((await w.withBody()).line).toBe(`RESERVED ${ids[1]} 1`);
      expect(await w.ask('reserve-with-timeout 2')).toBe('DEADLINE_SOON');
      // Pipelined, the same: no job is ready, so each answers DEADLINE_SOON.
      w.send('reserve-with-timeout 2\r\nreserve-with-timeout 2\r\n');
      expect([await w.line(), await w.line()]).toEqual(['DEADLINE_SOON', 'DEADLINE_SOON']);
    } finally {
      w.close();
    }
  });

  it('a TTR that lapses counts as a timeout in stats-job and stats, and the job is ready again', async () => {
    const w = await RawSession.open(target.port);
    const other = await RawSession.open(target.port);
    const yaml = async (session: RawSession, command: string): Promise<string> => {
      session.send(`${command}\r\n`);
      return (await session.withBody()).body.toString();
    };
    const field = (text: string, name: string) => new RegExp(`\\n${name}: (\\S+)`).exec(text)?.[1];
    try {
      const timeoutsBefore = Number(field(await yaml(other, 'stats'), 'job-timeouts'));
      const id = (await w.ask('put 0 0 1 5\r\nlapse')).split(' ')[1];
      w.send(`reserve-job ${id}\r\n`);
      expect((await w.withBody()).line).toBe(`RESERVED ${id} 5`);
      // The TTR ends a second after the reserve; on a busy host the server may take its time to notice.
      let job = '';
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await waitFor(
        async () => {
          job = await yaml(other, `stats-job ${id}`);
          if (field(job, 'state') === 'ready') return true;
          // The holder stays connected and says something harmless now and then: beanstalkd itself (the reference
          // target) was once seen, on a loaded host, not to time out a job taken by reserve-job for 10 s, until
          // its holder's connection was active again.
          expect(await w.ask('list-tube-used')).toMatch(/^USING /);
          return false;
        },
        'the lapsed job ready again',
        10_000,
      );
      expect([field(job, 'state'), field(job, 'reserves'), field(job, 'timeouts')]).toEqual(['ready', '1', '1']);
      expect(Number(field(await yaml(other, 'stats'), 'job-timeouts'))).toBe(timeoutsBefore + 1);
      expect(await w.ask(`delete ${id}`)).toBe('DELETED'); // a ready job: deleted, as beanstalkd does
    } finally {
      w.close();
      other.close();
    }
  });

  it("stats-job's delay is the one last given: by the put, then by each release", async () => {
    const w = await RawSession.open(target.port);
    const delayOf = async (id: string): Promise<string | undefined> => {
      w.send(`stats-job ${id}\r\n`);
      return /\ndelay: (\d+)/.exec((await w.withBody()).body.toString())?.[1];
    };
    try {
      const id = (await w.ask('put 0 3 30 1\r\nd')).split(' ')[1]!;
      expect(await delayOf(id)).toBe('3');
      await new Promise((resolve) => setTimeout(resolve, 1100)); // the release comes a second after the put
      for (const [delay, want] of [
        [5, '5'],
        [0, '0'],
      ] as const) {
        w.send(`reserve-job ${id}\r\n`);
        expect((await w.withBody()).line).toBe(`RESERVED ${id} 1`);
        expect(await w.ask(`release ${id} 0 ${delay}`)).toBe('RELEASED');
        expect(await delayOf(id)).toBe(want);
      }
      expect(await w.ask(`delete ${id}`)).toBe('DELETED');
    } finally {
      w.close();
    }
  });

  it("stats-job's kicks count the kicks of delayed jobs as well as of buried ones", async () => {
    const w = await RawSession.open(target.port);
    const kicked = `kick-${Math.random().toString(36).slice(2, 8)}`;
    const statsOf = async (id: string): Promise<string[]> => {
      w.send(`stats-job ${id}\r\n`);
      const yaml = (await w.withBody()).body.toString();
      return ['state', 'kicks', 'buries'].map((f) => new RegExp(`\\n${f}: (\\S+)`).exec(yaml)![1]!);
    };
    try {
      expect(await w.ask(`use ${kicked}`)).toBe(`USING ${kicked}`);
      const [a, b] = [await w.ask('put 0 100 30 1\r\na'), await w.ask('put 0 100 30 1\r\nb')].map(
        (l) => l.split(' ')[1]!,
      );
      expect(await w.ask('kick 1')).toBe('KICKED 1');
      expect(await statsOf(a!)).toEqual(['ready', '1', '0']);
      expect(await w.ask(`kick-job ${b}`)).toBe('KICKED');
      expect(await statsOf(b!)).toEqual(['ready', '1', '0']);
      w.send(`reserve-job ${a}\r\n`);
      await w.withBody();
      expect(await w.ask(`bury ${a} 5`)).toBe('BURIED');
      expect(await w.ask('kick 5')).toBe('KICKED 1');
      expect(await statsOf(a!)).toEqual(['ready', '2', '1']);
      for (const id of [a, b]) expect(await w.ask(`delete ${id}`)).toBe('DELETED');
    } finally {
      w.close();
    }
  });

  it('pipelined commands are answered in order', async () => {
    s.send('put 0 0 10 1\r\na\r\nput 0 0 10 1\r\nb\r\nput 0 0 10 1\r\nc\r\nlist-tube-used\r\n');
    const ids = [await s.line(), await s.line(), await s.line()].map((l) => l.split(' ')[1]);
    expect(await s.line()).toBe(`USING ${tube}`);
    s.send(ids.map(() => 'reserve\r\n').join(''));
    const bodies = [];
    for (const id of ids) {
      const r = await s.withBody();
      expect(r.line.split(' ')[1]).toBe(id);
      bodies.push(r.body.toString());
    }
    expect(bodies).toEqual(['a', 'b', 'c']);
    s.send(ids.map((id) => `delete ${id}\r\n`).join(''));
    for (const _ of ids) expect(await s.line()).toBe('DELETED');
    expect(await s.ask('stats-tube no-such-tube-here')).toBe('NOT_FOUND');
  });

  it('a tube whose jobs all ended and that no connection uses or watches is gone', async () => {
    const w = await RawSession.open(target.port);
    const gone = `gone-${Math.random().toString(36).slice(2, 8)}`;
    const listed = async (): Promise<string[]> => {
      w.send('list-tubes\r\n');
      return (await w.withBody()).body.toString().split('\n').slice(1, -1);
    };
    try {
      expect(await w.ask(`use ${gone}`)).toBe(`USING ${gone}`);
      const id = (await w.ask('put 0 0 10 1\r\nx')).split(' ')[1];
      expect(await w.ask(`delete ${id}`)).toBe('DELETED');
      expect(await listed()).toContain(`- ${gone}`); // still used
      expect(await w.ask('use default')).toBe('USING default');
      expect(await w.ask(`stats-tube ${gone}`)).toBe('NOT_FOUND');
      expect(await listed()).not.toContain(`- ${gone}`);
    } finally {
      w.close();
    }
  });

  it('ignore moves the last watched tube into the gap (list-tubes-watched shows the order)', async () => {
    const w = await RawSession.open(target.port);
    try {
      for (const [line, reply] of [
        ['watch one', 'WATCHING 2'],
        ['watch two', 'WATCHING 3'],
        ['watch three', 'WATCHING 4'],
        ['ignore default', 'WATCHING 3'],
      ] as const)
        expect(await w.ask(line)).toBe(reply);
      w.send('list-tubes-watched\r\n');
      expect((await w.withBody()).body.toString()).toBe('---\n- three\n- one\n- two\n');
    } finally {
      w.close();
    }
  });
  it('pause-tube pauses only a tube that exists, as stats-tube sees it', async () => {
    const w = await RawSession.open(target.port);
    const lone = `lone-${Math.random().toString(36).slice(2, 8)}`;
    try {
      expect(await w.ask(`pause-tube ${lone} 5`)).toBe('NOT_FOUND');
      expect(await w.ask(`watch ${lone}`)).toBe('WATCHING 2');
      expect(await w.ask(`pause-tube ${lone} 5`)).toBe('PAUSED');
      expect(await w.ask(`pause-tube ${lone} 0`)).toBe('PAUSED');
      w.send(`stats-tube ${lone}\r\n`);
      const yaml = (await w.withBody()).body.toString();
      // The refused pause is not the tube's: it did not exist then.
      expect(yaml).toContain('\ncmd-pause-tube: 2\n');
      expect(yaml).toContain('\npause: 0\n');
    } finally {
      w.close();
    }
  });

  it('current-jobs-urgent counts the ready jobs with a pri below 1024, in stats-tube and stats', async () => {
    const w = await RawSession.open(target.port);
    const u = `urgent-${Math.random().toString(36).slice(2, 8)}`;
    const field = async (command: string, name: string): Promise<number> => {
      w.send(`${command}\r\n`);
      const yaml = (await w.withBody()).body.toString();
      return Number(new RegExp(`\\n${name}: (\\d+)`).exec(yaml)?.[1]);
    };
    const urgent = async (): Promise<[number, number]> => [
      await field(`stats-tube ${u}`, 'current-jobs-urgent'),
      await field('stats', 'current-jobs-urgent'),
    ];
    try {
      expect(await w.ask(`use ${u}`)).toBe(`USING ${u}`);
      expect(await w.ask(`watch ${u}`)).toBe('WATCHING 2');
      expect(await w.ask('ignore default')).toBe('WATCHING 1');
      const [, before] = await urgent();
      const ids: string[] = [];
      for (const put of [
        'put 0 0 30 1\r\na',
        'put 1023 0 30 1\r\nb',
        'put 1024 0 30 1\r\nc',
        'put 5000 0 30 1\r\nd',
        'put 3 100 30 1\r\ne',
      ])
        ids.push((await w.ask(put)).split(' ')[1]!);
      expect(await urgent()).toEqual([2, before + 2]);
      expect(await w.ask('reserve-with-timeout 0')).toBe(`RESERVED ${ids[0]} 1`);
      expect(await w.line()).toBe('a');
      expect(await urgent()).toEqual([1, before + 1]);
      expect(await w.ask(`release ${ids[0]} 2000 0`)).toBe('RELEASED');
      expect(await urgent()).toEqual([1, before + 1]);
      expect(await w.ask('reserve-with-timeout 0')).toBe(`RESERVED ${ids[1]} 1`);
      expect(await w.line()).toBe('b');
      expect(await w.ask(`bury ${ids[1]} 7`)).toBe('BURIED');
      expect(await urgent()).toEqual([0, before]);
      expect(await w.ask('kick 1')).toBe('KICKED 1');
      expect(await urgent()).toEqual([1, before + 1]);
      for (const id of ids) expect(await w.ask(`delete ${id}`)).toBe('DELETED');
      expect(await urgent()).toEqual([0, before]);
    } finally {
      w.close();
    }
  });
  it('a client that goes away holding a job gives it back at once, not counted as a release', async () => {
    const w = await RawSession.open(target.port);
    const holder = await RawSession.open(target.port);
    const field = async (command: string, name: string): Promise<string | undefined> => {
      w.send(`${command}\r\n`);
      return new RegExp(`\\n${name}: (\\S+)`).exec((await w.withBody()).body.toString())?.[1];
    };
    const tube = `held-${Math.random().toString(36).slice(2, 8)}`;
    try {
      expect(await w.ask(`use ${tube}`)).toBe(`USING ${tube}`);
      const id = (await w.ask('put 0 0 30 1\r\nh')).split(' ')[1]!;
      expect(await holder.ask(`watch ${tube}`)).toBe('WATCHING 2');
      expect(await holder.ask(`reserve-job ${id}`)).toBe(`RESERVED ${id} 1`);
      expect(await holder.line()).toBe('h');
      holder.close();
      await waitFor(async () => (await field(`stats-job ${id}`, 'state')) === 'ready', 'the job ready again');
      expect([await field(`stats-job ${id}`, 'reserves'), await field(`stats-job ${id}`, 'releases')]).toEqual([
        '1',
        '0',
      ]);
      // A release over the protocol is one.
      expect(await w.ask(`reserve-job ${id}`)).toBe(`RESERVED ${id} 1`);
      expect(await w.line()).toBe('h');
      expect(await w.ask(`release ${id} 0 0`)).toBe('RELEASED');
      expect([await field(`stats-job ${id}`, 'reserves'), await field(`stats-job ${id}`, 'releases')]).toEqual([
        '2',
        '1',
      ]);
      expect(await w.ask(`delete ${id}`)).toBe('DELETED');
    } finally {
      holder.close();
      w.close();
    }
  });
  it('a tube made again after it ceased to exist starts its counters from 0', async () => {
    const w = await RawSession.open(target.port);
    const other = await RawSession.open(target.port);
    const again = `again-${Math.random().toString(36).slice(2, 8)}`;
    const counters = async (): Promise<string[]> => {
      w.send(`stats-tube ${again}\r\n`);
      const yaml = (await w.withBody()).body.toString();
      return ['cmd-delete', 'cmd-pause-tube'].map((f) => new RegExp(`\\n${f}: (\\d+)`).exec(yaml)![1]!);
    };
    try {
      // Left by use: deleted by a connection that neither uses nor watches it.
      expect(await w.ask(`use ${again}`)).toBe(`USING ${again}`);
      const id = (await w.ask('put 0 0 10 1\r\nx')).split(' ')[1];
      expect(await w.ask(`pause-tube ${again} 0`)).toBe('PAUSED');
      expect(await w.ask('use default')).toBe('USING default');
      expect(await other.ask(`delete ${id}`)).toBe('DELETED');
      expect(await w.ask(`stats-tube ${again}`)).toBe('NOT_FOUND');
      expect(await w.ask(`use ${again}`)).toBe(`USING ${again}`);
      expect(await counters()).toEqual(['0', '0']);
      // Left by ignore, its jobs gone first; then by a connection that closes.
      expect(await w.ask(`pause-tube ${again} 0`)).toBe('PAUSED');
      expect(await other.ask(`watch ${again}`)).toBe('WATCHING 2');
      expect(await w.ask('use default')).toBe('USING default');
      expect(await counters()).toEqual(['0', '1']);
      expect(await other.ask(`ignore ${again}`)).toBe('WATCHING 1');
      expect(await w.ask(`stats-tube ${again}`)).toBe('NOT_FOUND');
      expect(await other.ask(`watch ${again}`)).toBe('WATCHING 2');
      expect(await counters()).toEqual(['0', '0']);
      expect(await w.ask(`pause-tube ${again} 0`)).toBe('PAUSED');
      other.close();
      const gone = async (): Promise<boolean> => {
        const line = await w.ask(`stats-tube ${again}`);
        if (line !== 'NOT_FOUND') await w.take(Number(line.split(' ')[1]) + 2); // the yaml: still there
        return line === 'NOT_FOUND';
      };
      await waitFor(gone, 'the tube gone with its watcher');
      expect(await w.ask(`use ${again}`)).toBe(`USING ${again}`);
      expect(await counters()).toEqual(['0', '0']);
    } finally {
      other.close();
      w.close();
    }
  });
});
