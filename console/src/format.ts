/**
 * Times as the console shows them: in the zone the viewer picked in the header (UTC, or the browser's own
 * zone), always with that zone named; durations relative to now.
 */
const ZONE_KEY = 'delayq.zone';

/** The browser's own zone, e.g. "Europe/Paris". */
export const viewerZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The zone the tables use: 'UTC' or the viewer's (kept in localStorage). */
export function shownZone(): string {
  return localStorage.getItem(ZONE_KEY) === 'local' ? viewerZone() : 'UTC';
}

export function setShownZone(which: 'UTC' | 'local'): void {
  localStorage.setItem(ZONE_KEY, which);
}

/**
 * One formatter per zone and kind, made once: making an Intl.DateTimeFormat costs far more than using one,
 * and a chart formats a time for each of its points.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(kind: 'offset' | 'wall', zone: string): Intl.DateTimeFormat {
  const key = `${kind} ${zone}`;
  let made = formatters.get(key);
  if (!made) {
    made =
      kind === 'offset'
        ? new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })
        : new Intl.DateTimeFormat('en-CA', {
            timeZone: zone,
            year: 'numeric',
            month: '2-digit',
            day: '2-digit',
            hour: '2-digit',
            minute: '2-digit',
            second: '2-digit',
            hourCycle: 'h23',
          });
    formatters.set(key, made);
  }
  return made;
}

/** `+01:00`-style offset of `zone` at `at`. */
export function utcOffset(at: number, zone: string): string {
  const name = formatter('offset', zone)
    .formatToParts(new Date(at))
    .find((p) => p.type === 'timeZoneName')?.value;
  const offset = name?.replace(/^GMT/, '') ?? '';
  return offset === '' ? '+00:00' : offset;
}

/** `2026-11-27 16:10:05` in `zone` (no zone written). */
export function wallTime(at: number, zone: string): string {
  const parts = formatter('wall', zone).formatToParts(new Date(at));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')}`;
}

/** A time in the shown zone, with the zone: `2026-11-27 16:10:05 UTC`. */
export const time = (at: number | null | undefined, zone = shownZone()): string =>
  at == null ? '—' : `${wallTime(at, zone)} ${zone === 'UTC' ? 'UTC' : `${zone} (${utcOffset(at, zone)})`}`;

export function duration(ms: number): string {
  const abs = Math.abs(ms);
  const text =
    abs < 1000
      ? `${Math.round(abs)} ms`
      : abs < 120_000
        ? `${(abs / 1000).toFixed(1)} s`
        : abs < 7_200_000
          ? `${Math.round(abs / 60_000)} min`
          : abs < 172_800_000
            ? `${(abs / 3_600_000).toFixed(1)} h`
            : `${(abs / 86_400_000).toFixed(1)} d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** A length of time without direction: `1.5 s`, `10 min`. */
export const span = (ms: number): string => duration(ms).replace(/^in /, '');

export const seconds = (s: number | undefined): string =>
  s === undefined ? '—' : s < 1 ? `${Math.round(s * 1000)} ms` : `${s.toFixed(2)} s`;

export const count = (n: number): string => n.toLocaleString('en-US');
