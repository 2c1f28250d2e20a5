import type Database from 'better-sqlite3';
import type { EpochMs } from '../../core/clock.js';
import type { AssignedNumber, JobNumbers, NumberedId } from '../job-numbers.js';
import type { TopicPauses } from '../topic-pauses.js';

/** The store's connection and its group commit (writes go through it, as the store's own do). */
export interface SqliteAccess {
  conn(): Database.Database;
  write<T>(run: () => T): Promise<T>;
}

/** Paused topics in the `topic_pauses` table (migration 020). */
export class SqliteTopicPauses implements TopicPauses {
  private readonly sql: SqliteAccess;

  constructor(sql: SqliteAccess) {
    this.sql = sql;
  }

  async pause(topic: string, until: EpochMs | null): Promise<void> {
    const upsert =
      'INSERT INTO topic_pauses (topic, until) VALUES (?, ?) ON CONFLICT (topic) DO UPDATE SET until = excluded.until';
    await this.sql.write(() => this.sql.conn().prepare(upsert).run(topic, until));
  }

  resume(topic: string): Promise<boolean> {
    return this.sql.write(
      () => this.sql.conn().prepare('DELETE FROM topic_pauses WHERE topic = ?').run(topic).changes > 0,
    );
  }

  async list(): Promise<Map<string, EpochMs | null>> {
    const rows = this.sql.conn().prepare('SELECT topic, until FROM topic_pauses').all() as {
      topic: string;
      until: number | null;
    }[];
    return new Map(rows.map((r) => [r.topic, r.until]));
  }
}

/** Job numbers in the `job_numbers` table (migration 020): AUTOINCREMENT never hands a number out twice. */
export class SqliteJobNumbers implements JobNumbers {
  private readonly sql: SqliteAccess;

  constructor(sql: SqliteAccess) {
    this.sql = sql;
  }

  async numbersOf(ids: readonly string[]): Promise<number[]> {
    return (await this.assign(ids)).map((a) => a.number);
  }

  assign(ids: readonly string[]): Promise<AssignedNumber[]> {
    const db = this.sql.conn();
    const known = db.prepare('SELECT number FROM job_numbers WHERE id = ?');
    const insert = db.prepare('INSERT INTO job_numbers (id) VALUES (?) RETURNING number');
    return this.sql.write(() =>
      ids.map((id) => {
        const row = known.get(id) as { number: number } | undefined;
        return row
          ? { number: row.number, given: false }
          : { number: (insert.get(id) as { number: number }).number, given: true };
      }),
    );
  }

  async idOf(number: number): Promise<string | null> {
    const row = this.sql.conn().prepare('SELECT id FROM job_numbers WHERE number = ?').get(number) as
      { id: string } | undefined;
    return row?.id ?? null;
  }

  /** AUTOINCREMENT keeps its counter above every number it gave, so restored numbers never meet new ones. */
  async restore(numbers: readonly NumberedId[]): Promise<void> {
    const db = this.sql.conn();
    const drop = db.prepare('DELETE FROM job_numbers WHERE id = ? AND number <> ?');
    const put = db.prepare('INSERT OR REPLACE INTO job_numbers (number, id) VALUES (?, ?)');
    await this.sql.write(() => {
      for (const { id, number } of numbers) {
        drop.run(id, number);
        put.run(number, id);
      }
    });
  }
}
