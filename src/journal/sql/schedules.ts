import { sql } from 'kysely';
import type { Db } from './dialect.js';
import type { JournalSchedule } from '../journal.js';

/** Upserts schedule rows, each kept only if it is not older than the stored one. */
export async function writeSchedules(
  db: Db,
  dialect: 'postgres' | 'mysql',
  schedules: readonly JournalSchedule[],
): Promise<void> {
  if (!schedules.length) return;
  const now = Date.now();
  const rows = schedules.map((s) => ({
    name: s.name,
    created_at: s.createdAt,
    revision: s.revision,
    cursor_at: s.cursorAt,
    record: s.record,
    updated_at: now,
  }));
  const insert = db.insertInto('delayq_schedules').values(rows);
  if (dialect === 'postgres') {
    await insert
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet((eb) => ({
            created_at: eb.ref('excluded.created_at'),
            revision: eb.ref('excluded.revision'),
            cursor_at: eb.ref('excluded.cursor_at'),
            record: eb.ref('excluded.record'),
            updated_at: eb.ref('excluded.updated_at'),
          }))
          .where(
            sql<boolean>`(excluded.created_at, excluded.revision, excluded.cursor_at) >= (delayq_schedules.created_at, delayq_schedules.revision, delayq_schedules.cursor_at)`,
          ),
      )
      .execute();
    return;
  }
  // MySQL has no WHERE here: each column is kept unless newer. Assignments run left to right and see the
  // earlier ones, so the version columns the test reads change last (cursor_at, then revision, then created_at).
  const newer = 'ROW(VALUES(created_at), VALUES(revision), VALUES(cursor_at)) >= ROW(created_at, revision, cursor_at)';
  const keep = <T>(c: string) => sql.raw<T>(`IF(${newer}, VALUES(${c}), ${c})`);
  await insert
    .onDuplicateKeyUpdate({
      record: keep<string | null>('record'),
      updated_at: keep<number>('updated_at'),
      cursor_at: keep<number>('cursor_at'),
      revision: keep<number>('revision'),
      created_at: keep<number>('created_at'),
    })
    .execute();
}

/** The schedules the journal holds (not deleted), by name. */
export async function listSchedules(db: Db): Promise<JournalSchedule[]> {
  const rows = await db
    .selectFrom('delayq_schedules')
    .selectAll()
    .where('record', 'is not', null)
    .orderBy('name')
    .execute();
  return rows.map((r) => ({
    name: r.name,
    createdAt: Number(r.created_at),
    revision: Number(r.revision),
    cursorAt: Number(r.cursor_at),
    record: r.record,
  }));
}
