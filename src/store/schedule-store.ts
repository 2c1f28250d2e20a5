import type { EpochMs } from '../core/clock.js';
import { DelayqError } from '../core/errors.js';
import type { ScheduleDefinition, ScheduleRecord } from '../core/schedule.js';

/**
 * Which stored schedules an operator's write may touch (a caller limited to some topics: those of its topics).
 * The store checks it on the record it changes, in the same step, so no other writer slips in between.
 */
export type ScheduleGuard = (record: ScheduleRecord) => boolean;

/** A put over a schedule the guard keeps out: the name is taken, and nothing more is said of that schedule. */
export function scheduleNameTaken(name: string): DelayqError {
  return new DelayqError(
    'E_CONFLICT',
    `name: another schedule is named ${name}; schedule names are global, choose another`,
    {
      field: 'name',
    },
  );
}

/** A runner's move of one schedule's cursor, refused unless the record still has `revision` and `fromCursorAt`. */
export interface CursorMove {
  name: string;
  revision: number;
  fromCursorAt: EpochMs;
  toCursorAt: EpochMs;
  /** Ticks pushed by this move (added to `fired`); the latest becomes `lastFiredAt`. */
  fired: number;
  lastFiredAt: EpochMs | null;
}

/**
 * Where schedules live, shared by every instance on the same store (SQLite table, Redis hash; the SQL
 * journal keeps a copy when Redis is journaled). Operator writes bump `revision`; runner writes are
 * compare-and-set moves of the cursor, so two instances planning the same round move it once.
 */
export interface ScheduleStore {
  open(): Promise<void>;
  close(): Promise<void>;
  /**
   * Creates (cursor at `now`) or replaces the definition, keeping cursor, fires and pause. A schedule of that
   * name that `guard` refuses is left as it is: scheduleNameTaken is thrown.
   */
  put(
    definition: ScheduleDefinition,
    now: EpochMs,
    guard?: ScheduleGuard,
  ): Promise<{ record: ScheduleRecord; created: boolean }>;
  get(name: string): Promise<ScheduleRecord | null>;
  /** Every schedule, sorted by name. */
  list(): Promise<ScheduleRecord[]>;
  /** false: no such schedule (or one `guard` refuses, left as it is). */
  delete(name: string, guard?: ScheduleGuard): Promise<boolean>;
  /**
   * Pauses or resumes; resuming moves the cursor to `now` (ticks while paused are not fired). null: no such
   * schedule (or one `guard` refuses, left as it is).
   */
  setPaused(name: string, paused: boolean, now: EpochMs, guard?: ScheduleGuard): Promise<ScheduleRecord | null>;
  /** Applies each move whose revision and cursor still match; true for each one applied. */
  moveCursors(moves: readonly CursorMove[], now: EpochMs): Promise<boolean[]>;
  /** Puts a record back as it was (a restore from the SQL journal) unless a schedule of that name exists; true when written. */
  restore(record: ScheduleRecord): Promise<boolean>;
}

/** The record a first `put` creates. */
export function newRecord(definition: ScheduleDefinition, now: EpochMs): ScheduleRecord {
  return {
    ...definition,
    paused: false,
    revision: 1,
    cursorAt: now,
    fired: 0,
    lastFiredAt: null,
    anchorAt: definition.startAt ?? now,
    createdAt: now,
    updatedAt: now,
  };
}

/** A replacement: the new definition over the old record's progress. */
export function replacedRecord(old: ScheduleRecord, definition: ScheduleDefinition, now: EpochMs): ScheduleRecord {
  return {
    ...definition,
    paused: old.paused,
    resumed: old.resumed,
    revision: old.revision + 1,
    cursorAt: old.cursorAt,
    fired: old.fired,
    lastFiredAt: old.lastFiredAt,
    anchorAt: definition.startAt ?? old.createdAt,
    createdAt: old.createdAt,
    updatedAt: now,
  };
}

/** Pause or resume applied to a record. */
export function pausedRecord(old: ScheduleRecord, paused: boolean, now: EpochMs): ScheduleRecord {
  if (old.paused === paused) return old;
  return {
    ...old,
    paused,
    resumed: !paused,
    revision: old.revision + 1,
    cursorAt: paused ? old.cursorAt : Math.max(old.cursorAt, now),
    updatedAt: now,
  };
}

/** A cursor move applied to a record, or null when the record moved on (another instance, or an operator). */
export function movedRecord(old: ScheduleRecord, move: CursorMove, now: EpochMs): ScheduleRecord | null {
  if (old.revision !== move.revision || old.cursorAt !== move.fromCursorAt) return null;
  return {
    ...old,
    cursorAt: move.toCursorAt,
    resumed: false,
    fired: old.fired + move.fired,
    lastFiredAt: move.lastFiredAt ?? old.lastFiredAt,
    updatedAt: now,
  };
}
