import type Database from 'better-sqlite3';
import type { EpochMs } from '../../core/clock.js';
import type { JobNumbers } from '../job-numbers.js';
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
    const db = this.sql.conn();
    const upsert = db.prepare(
      'INSERT INTO job_numbers (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET id = id RETURNING number',
    );
    return this.sql.write(() => ids.map((id) => (upsert.get(id) as { number: number }).number));
  }

  async idOf(number: number): Promise<string | null> {
    const row = this.sql.conn().prepare('SELECT id FROM job_numbers WHERE number = ?').get(number) as
      { id: string } | undefined;
    return row?.id ?? null;
  }
}
