/** The axes of the charts: round value ticks, and time ticks on round wall-clock times of the shown zone. */
import { utcOffset, wallTime } from './format.js';

/** Ticks from 0 to a round top at or above `max`: at most five, on steps of 1, 2, 2.5 or 5 × 10ⁿ. */
export function valueTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= rough)!;
  const top = Math.ceil(max / step - 1e-9) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** A figure in few characters: `0.25`, `12`, `1.5k`, `2.1M`. */
export function short(value: number): string {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${Number((value / 1e6).toPrecision(3))}M`;
  if (abs >= 1e4) return `${Number((value / 1e3).toPrecision(3))}k`;
  return String(Number(value.toPrecision(abs >= 1 ? 4 : 2)));
}

const MINUTE = 60_000;
const SPANS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720].map((m) => m * MINUTE);

/** `+05:30` → 19_800_000. */
const offsetMs = (at: number, zone: string): number => {
  const [, sign = '+', h = '0', m = '0'] = /^([+-])(\d\d):(\d\d)$/.exec(utcOffset(at, zone)) ?? [];
  return (sign === '-' ? -1 : 1) * (Number(h) * 60 + Number(m)) * MINUTE;
};

export interface TimeTick {
  at: number;
  /** `14:30`, or `11-28 00:00` where the day changes from the tick before. */
  label: string;
}

/** At most `most` ticks in [from, to], on whole minutes or hours of the zone's wall clock. */
export function timeTicks(from: number, to: number, zone: string, most = 6): TimeTick[] {
  const span = SPANS.find((s) => (to - from) / s <= most) ?? 1440 * MINUTE;
  const offset = offsetMs(from, zone);
  const ticks: TimeTick[] = [];
  let day = '';
  for (let at = Math.ceil((from + offset) / span) * span - offset; at <= to; at += span) {
    const wall = wallTime(at, zone);
    const date = wall.slice(5, 10);
    ticks.push({ at, label: day && date !== day ? `${date} ${wall.slice(11, 16)}` : wall.slice(11, 16) });
    day = date;
  }
  return ticks;
}

/** The zone as the axes name it: `UTC`, or `Asia/Shanghai, UTC+08:00`. */
export const zoneName = (at: number, zone: string): string =>
  zone === 'UTC' ? 'UTC' : `${zone}, UTC${utcOffset(at, zone)}`;
