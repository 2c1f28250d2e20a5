import type { EpochMs } from './clock.js';
import { invalid } from './errors.js';

/**
 * Wall-clock times in IANA time zones, through Intl (the zone data Node ships).
 *
 * The DST rule (docs/schedules.md, the same for job `runAt` and cron schedules, which croner resolves alike):
 * a local time that does not exist (a spring-forward gap) means the first instant after the gap
 * (02:30 in New York on the spring day → 03:00 EDT); a local time that occurs twice (a fall-back overlap)
 * means the earlier instant (01:30 EDT, not 01:30 EST).
 */

const ZONE_NAME_RE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The IANA zone name, or E_VALIDATION naming `field` when Node does not know it. */
export function validateTimeZone(value: unknown, field = 'timeZone'): string {
  if (typeof value !== 'string' || value.length > 64 || !ZONE_NAME_RE.test(value)) {
    throw invalid(field, 'must be an IANA time zone name such as "Asia/Shanghai" or "UTC"');
  }
  try {
    formatterOf(value);
  } catch {
    throw invalid(field, `is not a time zone this server knows: ${value} (an IANA name such as "Europe/Berlin")`);
  }
  return value;
}

/** The zone's offset from UTC at instant `at`, in ms (east positive). */
export function zoneOffsetMs(zone: string, at: EpochMs): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(at))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - (at - (((at % 1000) + 1000) % 1000));
}

const HOUR_MS = 3_600_000;

/** The instant of a wall-clock time (given as if it were UTC) in `zone`, by the DST rule above. */
export function wallTimeToEpoch(wallAsUtc: number, zone: string): EpochMs {
  const before = zoneOffsetMs(zone, wallAsUtc - 26 * HOUR_MS);
  const after = zoneOffsetMs(zone, wallAsUtc + 26 * HOUR_MS);
  const candidates = [wallAsUtc - before, wallAsUtc - after].filter((t) => zoneOffsetMs(zone, t) === wallAsUtc - t);
  if (candidates.length) return Math.min(...candidates); // two in an overlap: the earlier
  // A gap: the wall time maps to no instant. The transition lies between these two; find its first instant.
  let lo = wallAsUtc - after; // still on the old offset
  let hi = wallAsUtc - before; // already on the new offset
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zoneOffsetMs(zone, mid) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}

const LOCAL_RE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d{1,3}))?)?)?$/;
const OFFSET_RE = /(?:Z|[+-]\d\d(?::?\d\d)?)$/i;

/** Whether an ISO-8601 text carries its own UTC offset (`Z`, `+08:00`). */
export function hasUtcOffset(text: string): boolean {
  return /T|\s/.test(text) && OFFSET_RE.test(text);
}

/** An ISO local date-time without offset (`2026-12-01T10:00`, seconds and ms optional, or a date) in `zone`. */
export function parseLocalDateTime(text: string, zone: string, field: string): EpochMs {
  const m = LOCAL_RE.exec(text);
  if (!m) throw invalid(field, 'must be an ISO-8601 local date-time such as "2026-12-01T10:00" when timeZone is given');
  const [year, month, day, hour, minute, second] = m
    .slice(1, 7)
    .map((v) => (v === undefined ? 0 : Number(v))) as number[];
  const ms = Number((m[7] ?? '0').padEnd(3, '0'));
  const wall = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, ms);
  const check = new Date(wall);
  if (check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day! || hour! > 23 || minute! > 59 || second! > 59) {
    throw invalid(field, `is not a valid date-time: ${text}`);
  }
  return wallTimeToEpoch(wall, zone);
}
