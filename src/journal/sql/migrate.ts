import { readdirSync, readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import type { JournalDatabase } from './schema.js';

/**
 * Applies the dialect's `migrations/NNN_name.sql` in order, recording each in delayq_migrations.
 * Append-only: a shipped file is never edited. The caller holds a cross-process lock around this.
 * (MySQL commits DDL implicitly, so each statement runs on its own; a failed migration is re-run whole.)
 */
export async function migrateJournal(db: Kysely<JournalDatabase>, dir: URL): Promise<number> {
  await sql`CREATE TABLE IF NOT EXISTS delayq_migrations (version INTEGER PRIMARY KEY, name VARCHAR(200) NOT NULL, applied_at BIGINT NOT NULL)`.execute(
    db,
  );
  const applied = new Set(
    (await db.selectFrom('delayq_migrations').select('version').execute()).map((r) => Number(r.version)),
  );
  const files = readdirSync(dir)
    .filter((f) => /^\d{3}_.+\.sql$/.test(f))
    .sort();
  // Two files of one version would leave the second unapplied for good: refuse such a build outright.
  const versions = files.map((f) => f.slice(0, 3));
  const twice = versions.find((v, i) => versions.indexOf(v) !== i);
  if (twice) throw new Error(`two journal migrations share version ${twice} in ${dir.pathname}`);
  let count = 0;
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (applied.has(version)) continue;
    for (const statement of splitStatements(readFileSync(new URL(file, dir), 'utf8'))) {
      await sql.raw(statement).execute(db);
    }
    await db.insertInto('delayq_migrations').values({ version, name: file, applied_at: Date.now() }).execute();
    count++;
  }
  return count;
}

/**
 * Splits a migration on `;` at line ends, dropping `--` comment lines. A PostgreSQL function body between
 * `$$` lines is kept whole (its own semicolons do not end the statement).
 */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let inBody = false;
  for (const line of text.split('\n')) {
    if (!inBody && line.trimStart().startsWith('--')) continue;
    current.push(line);
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      statements.push(current.join('\n').replace(/;\s*$/, ''));
      current = [];
    }
  }
  statements.push(current.join('\n'));
  return statements.map((s) => s.trim()).filter((s) => s.length > 0);
}
