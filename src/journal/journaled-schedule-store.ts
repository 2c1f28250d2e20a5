import type { EpochMs } from '../core/clock.js';
import type { Journal, JournalSchedule } from './journal.js';
import type { ScheduleDefinition, ScheduleRecord } from '../core/schedule.js';
import type { CursorMove, ScheduleGuard, ScheduleStore } from '../store/schedule-store.js';

function journalRow(record: ScheduleRecord): JournalSchedule {
  const { name, createdAt, revision, cursorAt } = record;
  return { name, createdAt, revision, cursorAt, record: JSON.stringify(record) };
}

/**
 * Schedules kept in their store (Redis) and copied into the SQL journal after each change, so a store that
 * lost its data gets them back: on open, and after each restore of the jobs (JournaledStore.onRestore).
 * The store stays the authority: the journal's copy is written after it, and a copy that is older than
 * the stored one is never applied (sql/schedules.ts). A copy lost in a crash between the two writes
 * only sets the restored cursor back: the ticks after it are pushed again as the same job ids, which the
 * journal already holds, so nothing fires twice while those jobs are kept.
 */
export class JournaledScheduleStore implements ScheduleStore {
  private readonly inner: ScheduleStore;
  private readonly journal: Journal;

  constructor(inner: ScheduleStore, journal: Journal) {
    this.inner = inner;
    this.journal = journal;
  }

  /** Opens the store (the journal is opened by the job store) and puts back schedules it lacks. */
  async open(): Promise<void> {
    await this.inner.open();
    await this.restoreMissing();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Every journaled schedule the store does not hold, put back as journaled; returns how many. */
  async restoreMissing(): Promise<number> {
    let restored = 0;
    for (const row of await this.journal.listSchedules()) {
      if (await this.inner.restore(JSON.parse(row.record!) as ScheduleRecord)) restored++;
    }
    return restored;
  }

  async put(
    definition: ScheduleDefinition,
    now: EpochMs,
    guard?: ScheduleGuard,
  ): Promise<{ record: ScheduleRecord; created: boolean }> {
    const result = await this.inner.put(definition, now, guard);
    await this.journal.writeSchedules([journalRow(result.record)]);
    return result;
  }

  get(name: string): Promise<ScheduleRecord | null> {
    return this.inner.get(name);
  }

  list(): Promise<ScheduleRecord[]> {
    return this.inner.list();
  }

  async delete(name: string, guard?: ScheduleGuard): Promise<boolean> {
    const old = await this.inner.get(name);
    const deleted = await this.inner.delete(name, guard);
    // A tombstone one revision up: a late copy of the deleted record can no longer bring it back.
    if (deleted && old)
      await this.journal.writeSchedules([{ ...journalRow(old), revision: old.revision + 1, record: null }]);
    return deleted;
  }

  async setPaused(name: string, paused: boolean, now: EpochMs, guard?: ScheduleGuard): Promise<ScheduleRecord | null> {
    const record = await this.inner.setPaused(name, paused, now, guard);
    if (record) await this.journal.writeSchedules([journalRow(record)]);
    return record;
  }

  async moveCursors(moves: readonly CursorMove[], now: EpochMs): Promise<boolean[]> {
    const applied = await this.inner.moveCursors(moves, now);
    const moved = await Promise.all(moves.filter((_, i) => applied[i]).map((m) => this.inner.get(m.name)));
    const rows = moved.filter((r): r is ScheduleRecord => r !== null).map(journalRow);
    await this.journal.writeSchedules(rows);
    return applied;
  }

  restore(record: ScheduleRecord): Promise<boolean> {
    return this.inner.restore(record);
  }
}
