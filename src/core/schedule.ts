import type { EpochMs } from './clock.js';
import type { PushInput } from './job-input.js';
import { LIMITS } from './limits.js';

/** What a missed tick (one due while no delayq instance ran) becomes: nothing, one job, or one job each. */
export type MissedTickPolicy = 'skip' | 'once' | 'each';

/** The job every fire pushes: an ordinary push without topic, id or due time. */
export type JobTemplate = Pick<
  PushInput,
  'body' | 'tag' | 'bizKey' | 'priority' | 'ttrMs' | 'ttlMs' | 'retry' | 'spreadMs'
>;

/** A schedule as the operator defined it (validated). Exactly one of `cron` and `everyMs` is set. */
export interface ScheduleDefinition {
  name: string;
  topic: string;
  job: JobTemplate;
  /** Croner pattern with seconds (6 fields; 5 fields mean second 0), read in `timeZone`. */
  cron: string | null;
  everyMs: number | null;
  /** IANA zone of `cron` (and of the local texts it was given). @defaultValue "UTC" */
  timeZone: string;
  /** No tick before (inclusive) / after (inclusive); interval ticks count from `startAt`, else from creation. */
  startAt: EpochMs | null;
  endAt: EpochMs | null;
  /** Fires in all, missed ones included; null: no limit. */
  maxFires: number | null;
  missed: MissedTickPolicy;
  /** With missed "each": at most this many missed ticks fire (the latest ones). */
  catchUpMax: number;
}

/** A stored schedule: its definition and where its ticks stand. */
export interface ScheduleRecord extends ScheduleDefinition {
  paused: boolean;
  /**
   * Resumed, and no runner round has planned it since: that round skips every tick already due (they came
   * due while it was paused, or while the resume was on its way), so none is pushed late. Absent in records
   * written before it existed: false.
   */
  resumed?: boolean | undefined;
  /** Bumped on every change by an operator; a runner's cursor move is refused against another revision. */
  revision: number;
  /** Every tick at or before this instant is settled (pushed or skipped); the next one lies after it. */
  cursorAt: EpochMs;
  /** Ticks fired so far (counted against `maxFires`). */
  fired: number;
  /** The latest tick fired (its job is `<name>~<lastFiredAt>`). */
  lastFiredAt: EpochMs | null;
  /** The anchor of interval ticks: `startAt`, else the first creation. */
  anchorAt: EpochMs;
  createdAt: EpochMs;
  updatedAt: EpochMs;
}

/**
 * The id of the job one tick pushes: two instances firing the same tick push the same id, so one job. It
 * holds `~`, which no caller's push may use (core/job-input.ts validatePushId): no one can take a tick's id first.
 */
export function tickJobId(name: string, tickAt: EpochMs): string {
  return `${name}${LIMITS.reservedIdChar}${tickAt}`;
}
