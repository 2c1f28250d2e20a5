import type { EpochMs } from '../core/clock.js';
import type { ScheduleRecord } from '../core/schedule.js';
import { latestTicks, nextTickAfter } from './schedule-ticks.js';

/** How far ahead of its time a tick's job is pushed, and how late a tick may be found before it counts as missed. */
export interface PlanTiming {
  leadMs: number;
  graceMs: number;
}

/** What one runner round does for one schedule: push these ticks' jobs, then move the cursor. */
export interface TickPlan {
  ticks: EpochMs[];
  cursorAt: EpochMs;
}

const MAX_TICKS_PER_ROUND = 1000;

/**
 * The ticks a round at `now` must push, given where the schedule's cursor stands. Ticks due before
 * `now - graceMs` were missed (no instance ran): the schedule's policy keeps none, the latest, or the
 * latest `catchUpMax`. Ticks up to `now + leadMs` are pushed ahead as delayed jobs. null: nothing to do.
 * A pure function of the stored record, so every instance plans the same ticks (and the same job ids).
 */
export function planTicks(schedule: ScheduleRecord, now: EpochMs, timing: PlanTiming): TickPlan | null {
  if (schedule.paused) return null;
  const remaining = schedule.maxFires === null ? Number.POSITIVE_INFINITY : schedule.maxFires - schedule.fired;
  if (remaining <= 0) return null;
  const ticks: EpochMs[] = [];
  // Just resumed: a tick due by now came due while the schedule was paused (or while the resume was on its
  // way to the store), so it is skipped, never pushed late. The move clears `resumed`.
  let cursorAt = schedule.resumed === true ? Math.max(schedule.cursorAt, now) : schedule.cursorAt;
  const missedUpTo = now - timing.graceMs - 1;
  if (missedUpTo > cursorAt) {
    const keep = schedule.missed === 'each' ? schedule.catchUpMax : schedule.missed === 'once' ? 1 : 0;
    const missed = latestTicks(schedule, cursorAt, missedUpTo, Math.max(keep, 1));
    if (missed.length) {
      ticks.push(...(keep === 0 ? [] : missed.slice(-keep)));
      cursorAt = missedUpTo;
    }
  }
  const horizon = now + timing.leadMs;
  for (
    let tick = nextTickAfter(schedule, cursorAt);
    tick !== null && tick <= horizon;
    tick = nextTickAfter(schedule, tick)
  ) {
    if (ticks.length >= MAX_TICKS_PER_ROUND) break;
    ticks.push(tick);
  }
  const fired = ticks.slice(0, Math.min(ticks.length, remaining));
  if (fired.length) cursorAt = Math.max(cursorAt, fired[fired.length - 1]!);
  if (!fired.length && cursorAt === schedule.cursorAt && schedule.resumed !== true) return null;
  return { ticks: fired, cursorAt };
}

/** The next tick that will fire (for display), or null when paused, ended or out of fires. */
export function nextFireAt(schedule: ScheduleRecord, now: EpochMs): EpochMs | null {
  if (schedule.paused || (schedule.maxFires !== null && schedule.fired >= schedule.maxFires)) return null;
  return nextTickAfter(schedule, Math.max(now - 1, schedule.startAt === null ? now - 1 : schedule.startAt - 1));
}
