import type { Cron } from 'croner';
import type { EpochMs } from '../core/clock.js';
import type { ScheduleRecord } from '../core/schedule.js';
import { compileCron } from './schedule-input.js';

type TickSource = Pick<ScheduleRecord, 'cron' | 'everyMs' | 'timeZone' | 'startAt' | 'endAt' | 'anchorAt'>;

const crons = new Map<string, Cron>();

/** Compiled patterns are cached by pattern and zone (they are immutable once built). */
function cronOf(source: TickSource): Cron {
  const key = `${source.timeZone} ${source.cron}`;
  let cron = crons.get(key);
  if (!cron) {
    if (crons.size > 10_000) crons.clear();
    cron = compileCron(source.cron!, source.timeZone);
    crons.set(key, cron);
  }
  return cron;
}

/** The first tick strictly after `after` (within startAt/endAt), or null when none is left. */
export function nextTickAfter(source: TickSource, after: EpochMs): EpochMs | null {
  let tick: EpochMs | null;
  if (source.everyMs !== null) {
    const anchor = source.anchorAt;
    const k = after < anchor ? 0 : Math.floor((after - anchor) / source.everyMs) + 1;
    tick = anchor + k * source.everyMs;
  } else {
    const from = source.startAt !== null && source.startAt - 1 > after ? source.startAt - 1 : after;
    tick = cronOf(source).nextRun(new Date(from))?.getTime() ?? null;
  }
  return tick !== null && (source.endAt === null || tick <= source.endAt) ? tick : null;
}

/** Up to `n` of the latest ticks in (after, upTo], oldest first. */
export function latestTicks(source: TickSource, after: EpochMs, upTo: EpochMs, n: number): EpochMs[] {
  const last = source.endAt !== null && source.endAt < upTo ? source.endAt : upTo;
  const floor = source.startAt !== null && source.startAt - 1 > after ? source.startAt - 1 : after;
  if (last <= floor || n <= 0) return [];
  let ticks: EpochMs[];
  if (source.everyMs !== null) {
    const anchor = source.anchorAt;
    if (last < anchor) return [];
    const kLast = Math.floor((last - anchor) / source.everyMs);
    ticks = [];
    for (let k = kLast; k >= 0 && ticks.length < n; k--) {
      const tick = anchor + k * source.everyMs;
      if (tick <= floor) break;
      ticks.push(tick);
    }
  } else {
    // previousRuns(reference) gives runs before the reference; +1 makes `last` itself count.
    ticks = cronOf(source)
      .previousRuns(n, new Date(last + 1))
      .map((d) => d.getTime())
      .filter((t) => t > floor && t <= last);
  }
  return ticks.sort((a, b) => a - b);
}
