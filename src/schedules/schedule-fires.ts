import type { EpochMs } from '../core/clock.js';
import type { Job } from '../core/job.js';
import { tickJobId, type ScheduleRecord } from '../core/schedule.js';
import { latestTicks, nextTickAfter } from './schedule-ticks.js';

/** One fired tick and the job it pushed. */
export interface ScheduleFire {
  tickAt: EpochMs;
  jobId: string;
  job: Job;
}

/** A schedule's coming ticks and its latest fires, as the console shows them. */
export interface ScheduleFires {
  next: EpochMs[];
  last: ScheduleFire[];
}

/** Ticks looked at per fire asked for: ticks skipped while paused or missed have no job and are passed over. */
const CANDIDATES_PER_FIRE = 4;

/**
 * Up to `count` ticks that will fire, from `now` on and not yet pushed (those past the cursor already have
 * their job, listed by lastFires); none when paused, ended or out of fires.
 */
export function nextFires(record: ScheduleRecord, now: EpochMs, count: number): EpochMs[] {
  if (record.paused) return [];
  const remaining = record.maxFires === null ? count : Math.min(count, record.maxFires - record.fired);
  const ticks: EpochMs[] = [];
  for (
    let tick = nextTickAfter(record, Math.max(record.cursorAt, now - 1));
    tick !== null && ticks.length < remaining;
    tick = nextTickAfter(record, tick)
  ) {
    ticks.push(tick);
  }
  return ticks;
}

/**
 * Up to `count` of the latest fired ticks whose job still exists, newest first. A tick's job is found by
 * its derived id (`<name>~<tick>`); ticks without one (skipped, or the job purged after retention) are left out.
 */
export async function lastFires(
  record: ScheduleRecord,
  count: number,
  getJob: (id: string) => Promise<Job | undefined>,
): Promise<ScheduleFire[]> {
  if (record.lastFiredAt === null || count <= 0) return [];
  const ticks = latestTicks(record, 0, record.lastFiredAt, count * CANDIDATES_PER_FIRE).reverse();
  const fires: ScheduleFire[] = [];
  for (const tickAt of ticks) {
    const jobId = tickJobId(record.name, tickAt);
    const job = await getJob(jobId);
    if (job) fires.push({ tickAt, jobId, job });
    if (fires.length >= count) break;
  }
  return fires;
}
