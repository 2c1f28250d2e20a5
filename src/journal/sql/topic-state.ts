import type { TopicStateJournal, TopicStateKind } from '../topic-state-journal.js';
import type { Db } from './dialect.js';
import { isDuplicateKey } from './meta-rows.js';

/**
 * Topics' settings and pauses in the journal (delayq_topic_state): the inner store keeps them for serving, the
 * journal a copy, so a wipe of the inner store loses none (journaled-topic-state.ts puts them back). A put is an
 * UPDATE, else an INSERT (a concurrent insert of the name fails on the primary key and the UPDATE is tried again):
 * one statement atomic on its row in both dialects.
 */
export class JournalTopicState implements TopicStateJournal {
  private readonly run: <T>(query: (db: Db) => Promise<T>) => Promise<T>;

  constructor(run: <T>(query: (db: Db) => Promise<T>) => Promise<T>) {
    this.run = run;
  }

  async put(kind: TopicStateKind, name: string, value: string | null): Promise<void> {
    if (value === null) {
      await this.run((db) =>
        db.deleteFrom('delayq_topic_state').where('kind', '=', kind).where('name', '=', name).execute(),
      );
      return;
    }
    for (;;) {
      const updated = await this.run((db) =>
        db
          .updateTable('delayq_topic_state')
          .set({ value })
          .where('kind', '=', kind)
          .where('name', '=', name)
          .executeTakeFirst(),
      );
      // MySQL counts only changed rows: an UPDATE to the same value reports 0, so the row is looked for.
      if (Number(updated.numUpdatedRows) === 1 || (await this.get(kind, name)) === value) return;
      const made = await this.run(async (db) => {
        try {
          await db.insertInto('delayq_topic_state').values({ kind, name, value }).execute();
          return true;
        } catch (err) {
          if (isDuplicateKey(err)) return false;
          throw err;
        }
      });
      if (made) return;
    }
  }

  async list(kind: TopicStateKind): Promise<Map<string, string>> {
    const rows = await this.run((db) =>
      db.selectFrom('delayq_topic_state').select(['name', 'value']).where('kind', '=', kind).execute(),
    );
    return new Map(rows.map((r) => [r.name, r.value]));
  }

  private async get(kind: TopicStateKind, name: string): Promise<string | undefined> {
    const row = await this.run((db) =>
      db
        .selectFrom('delayq_topic_state')
        .select('value')
        .where('kind', '=', kind)
        .where('name', '=', name)
        .executeTakeFirst(),
    );
    return row?.value;
  }
}
