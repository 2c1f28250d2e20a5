import type { Db } from './dialect.js';

/** The journal's named markers (delayq_meta): a value by name, compare-and-set, and an upsert. */
export async function getMeta(db: Db, name: string): Promise<string | null> {
  const row = await db.selectFrom('delayq_meta').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value ?? null;
}

/**
 * Sets `name` to `value` only if it holds `expected` (null: only if absent). False when another writer got there
 * first; other driver failures are thrown for the caller to map.
 */
export async function swapMeta(db: Db, name: string, expected: string | null, value: string): Promise<boolean> {
  if (expected !== null) {
    const result = await db
      .updateTable('delayq_meta')
      .set({ value })
      .where('name', '=', name)
      .where('value', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
  try {
    await db.insertInto('delayq_meta').values({ name, value }).execute();
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}

/** One upsert statement: a delete-then-insert lets two concurrent writers of one name collide on the key. */
export async function setMeta(db: Db, dialect: 'postgres' | 'mysql', name: string, value: string): Promise<void> {
  const insert = db.insertInto('delayq_meta').values({ name, value });
  await (
    dialect === 'postgres'
      ? insert.onConflict((oc) => oc.column('name').doUpdateSet({ value }))
      : insert.onDuplicateKeyUpdate({ value })
  ).execute();
}

/** PostgreSQL unique_violation, MySQL/MariaDB ER_DUP_ENTRY. */
export function isDuplicateKey(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown };
  return e.code === '23505' || e.code === 'ER_DUP_ENTRY' || e.errno === 1062;
}
