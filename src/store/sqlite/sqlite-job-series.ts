import type { EpochMs } from '../../core/clock.js';
import {
  BACKLOG_STATES,
  SERIES_TIERS,
  backlogField,
  slotStart,
  type JobSeries,
  type SeriesCounts,
  type SeriesQuery,
  type SeriesSlot,
  type TopicBacklog,
} from '../job-series.js';
import type { SqliteAccess } from './sqlite-extras.js';

const ADD =
  'INSERT INTO job_series (slot_ms, slot_at, topic, field, value) VALUES (?, ?, ?, ?, ?) ' +
  'ON CONFLICT (slot_ms, slot_at, topic, field) DO UPDATE SET value = value + excluded.value';
const SET =
  'INSERT INTO job_series (slot_ms, slot_at, topic, field, value) VALUES (?, ?, ?, ?, ?) ' +
  'ON CONFLICT (slot_ms, slot_at, topic, field) DO UPDATE SET value = excluded.value';
const EXPIRE = 'DELETE FROM job_series WHERE slot_ms = ? AND slot_at < ?';
const READ_ALL =
  'SELECT topic, slot_at AS at, field, value FROM job_series WHERE slot_ms = ? AND slot_at >= ? AND slot_at < ?';
const READ_TOPIC = `${READ_ALL} AND topic = ?`;

/**
 * The series in the `job_series` table (migration 037), written through the store's group commit. One
 * process owns a SQLite store, so it alone samples the backlog; each write also deletes the slots its tier
 * no longer keeps (a range of the primary key).
 */
export class SqliteJobSeries implements JobSeries {
  private readonly sql: SqliteAccess;

  constructor(sql: SqliteAccess) {
    this.sql = sql;
  }

  add(items: readonly SeriesCounts[], now: EpochMs): Promise<void> {
    return this.write(now, (db) => {
      const add = db.prepare(ADD);
      for (const { topic, at, counts } of items) {
        for (const { slotMs } of SERIES_TIERS) {
          const slotAt = slotStart(at, slotMs);
          for (const [field, amount] of Object.entries(counts)) add.run(slotMs, slotAt, topic, field, amount);
        }
      }
    });
  }

  async claimBacklogSample(): Promise<boolean> {
    return true;
  }

  setBacklog(at: EpochMs, backlog: readonly TopicBacklog[], now: EpochMs): Promise<void> {
    return this.write(now, (db) => {
      const set = db.prepare(SET);
      for (const { topic, counts } of backlog) {
        for (const { slotMs } of SERIES_TIERS) {
          for (const state of BACKLOG_STATES)
            set.run(slotMs, slotStart(at, slotMs), topic, backlogField(state), counts[state]);
        }
      }
    });
  }

  async read(query: SeriesQuery): Promise<SeriesSlot[]> {
    const db = this.sql.conn();
    const rows = (
      query.topic === undefined
        ? db.prepare(READ_ALL).all(query.slotMs, query.from, query.to)
        : db.prepare(READ_TOPIC).all(query.slotMs, query.from, query.to, query.topic)
    ) as { topic: string; at: number; field: string; value: number }[];
    const slots = new Map<string, SeriesSlot>();
    for (const { topic, at, field, value } of rows) {
      const key = `${at} ${topic}`;
      let slot = slots.get(key);
      if (!slot) slots.set(key, (slot = { topic, at, fields: {} }));
      slot.fields[field] = value;
    }
    return [...slots.values()];
  }

  /** One write in the group commit, after dropping the slots each tier no longer keeps. */
  private write(now: EpochMs, run: (db: ReturnType<SqliteAccess['conn']>) => void): Promise<void> {
    return this.sql.write(() => {
      const db = this.sql.conn();
      const expire = db.prepare(EXPIRE);
      for (const { slotMs, keepMs } of SERIES_TIERS) expire.run(slotMs, now - keepMs - slotMs);
      run(db);
    });
  }
}
