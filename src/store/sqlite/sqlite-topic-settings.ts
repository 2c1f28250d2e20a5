import type { TopicSettings } from '../../core/topic-settings.js';
import type { TopicSettingsStore } from '../topic-settings.js';
import type { SqliteAccess } from './sqlite-extras.js';

/** Topics' settings in the `topic_settings` table (migration 047), one JSON text per topic. */
export class SqliteTopicSettings implements TopicSettingsStore {
  private readonly sql: SqliteAccess;

  constructor(sql: SqliteAccess) {
    this.sql = sql;
  }

  async put(topic: string, settings: TopicSettings): Promise<void> {
    const upsert =
      'INSERT INTO topic_settings (topic, settings) VALUES (?, ?) ON CONFLICT (topic) DO UPDATE SET settings = excluded.settings';
    await this.sql.write(() =>
      Object.keys(settings).length === 0
        ? this.sql.conn().prepare('DELETE FROM topic_settings WHERE topic = ?').run(topic)
        : this.sql.conn().prepare(upsert).run(topic, JSON.stringify(settings)),
    );
  }

  async list(): Promise<Map<string, TopicSettings>> {
    const rows = this.sql.conn().prepare('SELECT topic, settings FROM topic_settings').all() as {
      topic: string;
      settings: string;
    }[];
    return new Map(rows.map((r) => [r.topic, JSON.parse(r.settings) as TopicSettings]));
  }
}
