import { sql, type Kysely } from 'kysely';
import type { JournalDatabase } from './schema.js';

/**
 * The journal's counter tables that triggers keep, one row per writing connection (`slot`) and key, so two
 * transactions never wait on one counter row: delayq_journal_counts (topic, state; journal-only-counts.ts) and
 * delayq_journal_due_hours (topic, hour; due-histogram.ts).
 */
const COUNTER_KEYS = {
  delayq_journal_counts: ['topic', 'state'],
  delayq_journal_due_hours: ['topic', 'hour'],
} as const;
export type CounterTable = keyof typeof COUNTER_KEYS;

/** Folded rows per INSERT on MySQL. */
const FOLD_INSERT_ROWS = 500;

/**
 * Moves every writer's slot of `table` into slot 0 and drops counters at 0, in one transaction. A writer adds to
 * its slot inside its own transaction, so the rows are locked first: a slot is folded once its writer committed.
 * The names are this file's constants, never input.
 */
export async function foldCounterSlots(
  db: Kysely<JournalDatabase>,
  dialect: 'postgres' | 'mysql',
  table: CounterTable,
): Promise<void> {
  const keys = COUNTER_KEYS[table];
  const t = sql.table(table);
  const keyList = sql.join(keys.map((k) => sql.ref(k)));
  if (dialect === 'postgres') {
    await sql`
      WITH gone AS (DELETE FROM ${t} WHERE slot <> 0 RETURNING ${keyList}, n)
      INSERT INTO ${t} (${keyList}, slot, n)
        SELECT ${keyList}, 0, sum(n) FROM gone GROUP BY ${keyList} ORDER BY ${keyList}
      ON CONFLICT (${keyList}, slot) DO UPDATE SET n = ${t}.n + excluded.n`.execute(db);
  } else {
    await db.transaction().execute(async (trx) => {
      const rows = await sql<Record<string, string | number>>`
        SELECT ${keyList}, SUM(n) AS n FROM ${t} WHERE slot <> 0
        GROUP BY ${keyList} ORDER BY ${keyList} FOR UPDATE`.execute(trx);
      await sql`DELETE FROM ${t} WHERE slot <> 0`.execute(trx);
      for (let i = 0; i < rows.rows.length; i += FOLD_INSERT_ROWS) {
        const values = rows.rows
          .slice(i, i + FOLD_INSERT_ROWS)
          .map((r) => sql`(${sql.join(keys.map((k) => sql`${r[k]}`))}, 0, ${Number(r['n'])})`);
        await sql`INSERT INTO ${t} (${keyList}, slot, n) VALUES ${sql.join(values)}
          ON DUPLICATE KEY UPDATE n = n + VALUES(n)`.execute(trx);
      }
    });
  }
  await sql`DELETE FROM ${t} WHERE slot = 0 AND n = 0`.execute(db);
}
