import { describe, expect, it } from 'vitest';
import {
  commandOf,
  readJobId,
  readKickBound,
  readTimeoutSeconds,
  readTubeName,
  readU32,
} from '../../src/beanstalkd/command-line.js';

// The readers' edges that a live comparison with beanstalkd cannot show (it has no such jobs or waits).
describe('reading command lines as beanstalkd 1.12 does', () => {
  it('finds the command by prefix, in beanstalkd order', () => {
    expect(commandOf('reserve-with-timeout 5')).toEqual({ name: 'reserve-with-timeout', rest: '5' });
    expect(commandOf('reserve-with-timeout')).toEqual({ name: 'reserve', rest: '-with-timeout' });
    expect(commandOf('stats-tube')).toEqual({ name: 'stats', rest: '-tube' });
    expect(commandOf('quitting')?.name).toBe('quit');
    expect(commandOf('put')).toBeNull();
    expect(commandOf('deletex 1')).toBeNull();
  });

  it('job ids are 64-bit; one past exact integers names no job', () => {
    expect(readJobId(' 12', true)).toEqual({ value: 12, rest: '' });
    expect(readJobId('18446744073709551615', true)?.value).toBe(Infinity);
    expect(readJobId('18446744073709551616', true)).toBeNull();
    expect(readJobId('12 ', true)).toBeNull();
    expect(readJobId('12 3', false)).toEqual({ value: 12, rest: ' 3' });
    expect(readJobId('+12', true)).toBeNull();
  });

  it('32-bit numbers stop at 2^32 - 1', () => {
    expect(readU32('4294967295', true)?.value).toBe(4294967295);
    expect(readU32('4294967296', true)).toBeNull();
  });

  it('a reserve timeout is read as strtol into an int', () => {
    expect(readTimeoutSeconds('5')).toBe(5);
    expect(readTimeoutSeconds('\t5 and more')).toBe(5);
    expect(readTimeoutSeconds('')).toBe(0);
    expect(readTimeoutSeconds('z')).toBe(0);
    expect(readTimeoutSeconds('4294967296')).toBe(0);
    expect(readTimeoutSeconds('-1')).toBe(Infinity);
    expect(readTimeoutSeconds('2147483648')).toBe(Infinity);
    expect(readTimeoutSeconds('9223372036854775808')).toBeNull();
  });

  it('a kick bound is read as strtoul into an unsigned int', () => {
    expect(readKickBound(' 10x')).toBe(10);
    expect(readKickBound('-1')).toBe(4294967295);
    expect(readKickBound('4294967296')).toBe(0);
    expect(readKickBound('18446744073709551616')).toBeNull();
    expect(readKickBound(' ')).toBeNull();
  });

  it("pause-tube's name runs up to the first character a tube name cannot hold", () => {
    expect(readTubeName('  a$b 5')).toEqual({ value: 'a$b', rest: ' 5' });
    expect(readTubeName(' ')).toBeNull();
  });
});

describe('the lookup before the prefix walk', () => {
  it('answers every line as the walk alone would', () => {
    const names = [
      'put',
      'peek',
      'peek-ready',
      'reserve',
      'reserve-with-timeout',
      'reserve-job',
      'delete',
      'release',
      'bury',
      'kick',
      'kick-job',
      'touch',
      'stats',
      'stats-job',
      'stats-tube',
      'use',
      'watch',
      'ignore',
      'list-tubes',
      'list-tube-used',
      'list-tubes-watched',
      'quit',
      'pause-tube',
      'x',
      '',
    ];
    const walk = (line: string) => {
      const prefixes = [
        'put ',
        'peek ',
        'peek-ready',
        'peek-delayed',
        'peek-buried',
        'reserve-with-timeout ',
        'reserve-job ',
        'reserve',
        'delete ',
        'release ',
        'bury ',
        'kick ',
        'kick-job ',
        'touch ',
        'stats-job ',
        'stats-tube ',
        'stats',
        'use ',
        'watch ',
        'ignore ',
        'list-tubes-watched',
        'list-tube-used',
        'list-tubes',
        'quit',
        'pause-tube',
      ];
      const p = prefixes.find((x) => line.startsWith(x));
      return p === undefined ? null : { name: p.trimEnd(), rest: line.slice(p.length) };
    };
    for (const name of names)
      for (const tail of ['', ' ', ' 1', 'x', 'x 1', '  1', '-tube a', '-job 1', '-with-timeout 1', 's'])
        expect(commandOf(name + tail)).toEqual(walk(name + tail));
  });
});
