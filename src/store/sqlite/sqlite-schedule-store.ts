import Database from 'better-sqlite3';
import type { EpochMs } from '../../core/clock.js';
import { DelayqError } from '../../core/errors.js';
import { migrate } from './migrate.js';
import type { ScheduleDefinition, ScheduleRecord } from '../../core/schedule.js';
import {
  movedRecord,
  newRecord,
  pausedRecord,
  replacedRecord,
  scheduleNameTaken,
  type CursorMove,
  type ScheduleGuard,
  type ScheduleStore,
} from '../schedule-store.js';

const SQL = {
  get: 'SELECT record FROM schedules WHERE name = ?',
  list: 'SELECT record FROM schedules ORDER BY name',
  upsert: `INSERT INTO schedules (name, revision, cursor_at, record) VALUES (?, ?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET revision = excluded.revision, cursor_at = excluded.cursor_at, record = excluded.record`,
  delete: 'DELETE FROM schedules WHERE name = ?',
  insertIfAbsent:
    'INSERT INTO schedules (name, revision, cursor_at, record) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
  move: 'UPDATE schedules SET cursor_at = ?, record = ? WHERE name = ? AND revision = ? AND cursor_at = ?',
} as const;

export interface SqliteScheduleStoreOptions {
  /** The job store's database file (the schedules table comes with its migrations), or ':memory:'. */
  path: string;
}

/** Schedules in the embedded store's SQLite file (migration 007). */
export class SqliteScheduleStore implements ScheduleStore {
  private readonly options: SqliteScheduleStoreOptions;
  private db: Database.Database | undefined;
  private stmt!: { [K in keyof typeof SQL]: Database.Statement };

  constructor(options: SqliteScheduleStoreOptions) {
    this.options = options;
  }

  async open(): Promise<void> {
    if (this.db) return;
    const db = new Database(this.options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    migrate(db);
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([k, sql]) => [k, db.prepare(sql)])) as typeof this.stmt;
    this.db = db;
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  private get conn(): Database.Database {
    if (!this.db) throw new DelayqError('E_STORE_UNAVAILABLE', 'the SQLite schedule store is not open');
    return this.db;
  }

  private read(name: string): ScheduleRecord | null {
    const row = this.stmt.get.get(name) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as ScheduleRecord) : null;
  }

  async restore(record: ScheduleRecord): Promise<boolean> {
    const name = record.name;
    return this.stmt.insertIfAbsent.run(name, record.revision, record.cursorAt, JSON.stringify(record)).changes === 1;
  }

  private write(record: ScheduleRecord): void {
    this.stmt.upsert.run(record.name, record.revision, record.cursorAt, JSON.stringify(record));
  }

  async put(
    definition: ScheduleDefinition,
    now: EpochMs,
    guard?: ScheduleGuard,
  ): Promise<{ record: ScheduleRecord; created: boolean }> {
    return this.conn
      .transaction(() => {
        const old = this.read(definition.name);
        if (old && guard && !guard(old)) throw scheduleNameTaken(definition.name);
        const record = old ? replacedRecord(old, definition, now) : newRecord(definition, now);
        this.write(record);
        return { record, created: !old };
      })
      .immediate();
  }

  async get(name: string): Promise<ScheduleRecord | null> {
    return this.conn && this.read(name);
  }

  async list(): Promise<ScheduleRecord[]> {
    return (
      this.conn && (this.stmt.list.all() as { record: string }[]).map((row) => JSON.parse(row.record) as ScheduleRecord)
    );
  }

  async delete(name: string, guard?: ScheduleGuard): Promise<boolean> {
    return this.conn
      .transaction(() => {
        const old = this.read(name);
        if (!old || (guard && !guard(old))) return false;
        return this.stmt.delete.run(name).changes > 0;
      })
      .immediate();
  }

  async setPaused(name: string, paused: boolean, now: EpochMs, guard?: ScheduleGuard): Promise<ScheduleRecord | null> {
    return this.conn
      .transaction(() => {
        const old = this.read(name);
        if (!old || (guard && !guard(old))) return null;
        const record = pausedRecord(old, paused, now);
        if (record !== old) this.write(record);
        return record;
      })
      .immediate();
  }

  async moveCursors(moves: readonly CursorMove[], now: EpochMs): Promise<boolean[]> {
    return this.conn
      .transaction(() =>
        moves.map((move) => {
          const old = this.read(move.name);
          const record = old && movedRecord(old, move, now);
          if (!record) return false;
          return (
            this.stmt.move.run(record.cursorAt, JSON.stringify(record), move.name, move.revision, move.fromCursorAt)
              .changes > 0
          );
        }),
      )
      .immediate();
  }
}
