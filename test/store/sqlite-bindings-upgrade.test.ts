/**
 * Bindings kept by an earlier version: a routes.db beside the job file, with sink_routes tables. The
 * SQLite backend renames the file to bindings.db at its first open (while bindings.db is absent) and the
 * tables to sink_bindings, and every binding is still there.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { sqliteBackend } from '../../src/store/sqlite/sqlite-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-bindings-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the first release wrote: two tables in routes.db, one binding, version 3. */
function writeFirstRelease(path: string): void {
  const db = new Database(path);
  db.exec(`
    CREATE TABLE sink_routes (topic TEXT PRIMARY KEY, sink TEXT NOT NULL, updated_at INTEGER NOT NULL);
    CREATE TABLE sink_routes_version (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
    INSERT INTO sink_routes_version (id, version) VALUES (1, 3);
  `);
  const sink = { type: 'webhook', url: 'https://hooks.example/a' };
  db.prepare('INSERT INTO sink_routes VALUES (?, ?, ?)').run('orders', JSON.stringify(sink), 1000);
  db.close();
}

it('a routes.db of an earlier version becomes bindings.db, its bindings kept', async () => {
  writeFirstRelease(join(dir, 'routes.db'));
  const store = sqliteBackend({ path: join(dir, 'delayq.db'), nodeId: 'n' }).bindings<{ type: string }>();
  await store.open();
  try {
    expect(await store.list()).toEqual([
      { topic: 'orders', sink: { type: 'webhook', url: 'https://hooks.example/a' }, updatedAt: 1000 },
    ]);
    expect(await store.version()).toBe('3');
  } finally {
    await store.close();
  }
  expect(existsSync(join(dir, 'routes.db'))).toBe(false);
  const db = new Database(join(dir, 'bindings.db'), { readonly: true });
  const tables = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((t) => t.name);
  db.close();
  expect(tables).toEqual(['sink_bindings', 'sink_bindings_version']);
});

it('a bindings.db already there wins: a stale routes.db beside it is left alone', async () => {
  const sub = mkdtempSync(join(dir, 'both-'));
  writeFirstRelease(join(sub, 'routes.db'));
  const backend = sqliteBackend({ path: join(sub, 'delayq.db'), nodeId: 'n' });
  const fresh = backend.bindings<{ type: string }>();
  rmSync(join(sub, 'routes.db'));
  await fresh.open(); // creates bindings.db, empty
  await fresh.close();
  writeFirstRelease(join(sub, 'routes.db'));
  const again = backend.bindings<{ type: string }>();
  await again.open();
  try {
    expect(await again.list()).toEqual([]);
  } finally {
    await again.close();
  }
  expect(existsSync(join(sub, 'routes.db'))).toBe(true);
});
