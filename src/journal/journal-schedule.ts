/**
 * A schedule as the journal keeps it: the record as opaque JSON (src/schedule owns its shape; the journal
 * sits below it) and its version. A write is applied only if its version (createdAt, revision, cursorAt)
 * is at least the stored one, so writes from several instances arriving out of order keep the newest;
 * `record: null` is a deletion (a tombstone one revision above the deleted record).
 */
export interface JournalSchedule {
  name: string;
  createdAt: number;
  revision: number;
  cursorAt: number;
  record: string | null;
}
