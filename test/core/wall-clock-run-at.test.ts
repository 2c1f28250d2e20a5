import { describe, expect, it } from 'vitest';
import { DelayqError } from '../../src/core/errors.js';
import { DEFAULT_JOB_DEFAULTS } from '../../src/config.js';
import { normalizePush, type PushInput } from '../../src/core/job-input.js';
import { parseLocalDateTime, validateTimeZone, wallTimeToEpoch } from '../../src/core/time-zone.js';

const now = Date.UTC(2026, 5, 1);
const ctx = { now, defaults: DEFAULT_JOB_DEFAULTS, newId: () => '01GENERATED' };
const push = (input: Record<string, unknown>) => normalizePush({ topic: 'orders', ...input } as PushInput, ctx);

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DelayqError && err.code === 'E_VALIDATION') return err.field;
    throw err;
  }
  throw new Error('expected E_VALIDATION');
}

describe('runAt as local time with timeZone', () => {
  it('reads the local time in the zone', () => {
    expect(push({ runAt: '2026-12-01T10:00', timeZone: 'Asia/Shanghai' }).runAt).toBe(
      Date.parse('2026-12-01T02:00:00Z'),
    );
    expect(push({ runAt: '2026-07-01T10:00:30.5', timeZone: 'Europe/Berlin' }).runAt).toBe(
      Date.parse('2026-07-01T08:00:30.500Z'),
    );
    expect(push({ runAt: '2026-12-01', timeZone: 'America/New_York' }).runAt).toBe(Date.parse('2026-12-01T05:00:00Z'));
    expect(push({ runAt: '2026-12-01T10:00', timeZone: 'UTC' }).runAt).toBe(Date.parse('2026-12-01T10:00:00Z'));
  });

  it('still takes texts with an offset, and epoch ms, without a zone', () => {
    expect(push({ runAt: '2026-12-01T10:00+08:00' }).runAt).toBe(Date.parse('2026-12-01T02:00:00Z'));
    expect(push({ runAt: '2026-12-01T10:00:00Z' }).runAt).toBe(Date.parse('2026-12-01T10:00:00Z'));
    expect(push({ runAt: now + 5 }).runAt).toBe(now + 5);
  });

  it('refuses text without offset and zone, naming runAt (it used to be read in the server zone)', () => {
    expect(fieldOf(() => push({ runAt: '2026-12-01T10:00' }))).toBe('runAt');
    expect(fieldOf(() => push({ runAt: '2026-12-01' }))).toBe('runAt');
  });

  it('refuses unknown zones, a zone beside an offset or epoch ms, and a zone without runAt', () => {
    expect(fieldOf(() => push({ runAt: '2026-12-01T10:00', timeZone: 'Mars/Olympus' }))).toBe('timeZone');
    expect(fieldOf(() => push({ runAt: '2026-12-01T10:00', timeZone: '../etc' }))).toBe('timeZone');
    expect(fieldOf(() => push({ runAt: '2026-12-01T10:00Z', timeZone: 'UTC' }))).toBe('timeZone');
    expect(fieldOf(() => push({ runAt: now, timeZone: 'UTC' }))).toBe('timeZone');
    expect(fieldOf(() => push({ delayMs: 5, timeZone: 'UTC' }))).toBe('timeZone');
    expect(fieldOf(() => push({ runAt: '2026-02-30T10:00', timeZone: 'UTC' }))).toBe('runAt');
    expect(fieldOf(() => push({ runAt: '2026-12-01T25:00', timeZone: 'UTC' }))).toBe('runAt');
  });

  it('resolves a spring-forward gap to the first instant after it', () => {
    // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00Z).
    expect(parseLocalDateTime('2026-03-08T02:30', 'America/New_York', 'runAt')).toBe(
      Date.parse('2026-03-08T07:00:00Z'),
    );
    expect(parseLocalDateTime('2026-03-08T03:00', 'America/New_York', 'runAt')).toBe(
      Date.parse('2026-03-08T07:00:00Z'),
    );
    expect(parseLocalDateTime('2026-03-08T01:59:59', 'America/New_York', 'runAt')).toBe(
      Date.parse('2026-03-08T06:59:59Z'),
    );
    // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST (01:00Z).
    expect(parseLocalDateTime('2026-03-29T02:15', 'Europe/Berlin', 'runAt')).toBe(Date.parse('2026-03-29T01:00:00Z'));
  });

  it('resolves a fall-back overlap to the earlier instant', () => {
    // New York, 2026-11-01: 01:00–02:00 happens twice (EDT 05:00Z–06:00Z, then EST 06:00Z–07:00Z).
    expect(parseLocalDateTime('2026-11-01T01:30', 'America/New_York', 'runAt')).toBe(
      Date.parse('2026-11-01T05:30:00Z'),
    );
    expect(parseLocalDateTime('2026-11-01T02:00', 'America/New_York', 'runAt')).toBe(
      Date.parse('2026-11-01T07:00:00Z'),
    );
    expect(wallTimeToEpoch(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Berlin')).toBe(Date.parse('2026-10-25T00:30:00Z'));
  });

  it('knows the common IANA names', () => {
    for (const zone of ['Asia/Shanghai', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'UTC']) {
      expect(validateTimeZone(zone)).toBe(zone);
    }
  });
});
