import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Backend } from '../backend.js';
import { SqliteBindingStore } from './sqlite-binding-store.js';
import { SqliteScheduleStore } from './sqlite-schedule-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { SqliteStoreOptions } from './sqlite-store-options.js';

/**
 * The embedded backend: the jobs and the schedules in one SQLite file (its directory is created), the
 * delivery bindings in a second file beside it (bindings.db). One process owns them; the HTTP rate limiter counts in
 * that process.
 */
export function sqliteBackend(options: SqliteStoreOptions): Backend {
  const { path } = options;
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const inMemory = path === ':memory:';
  // routes.db: the file's first name, taken over at open (bindings were called routes then).
  const bindings = inMemory
    ? { path }
    : { path: join(dirname(path), 'bindings.db'), formerPath: join(dirname(path), 'routes.db') };
  return {
    location: path,
    jobs: new SqliteStore(options),
    schedules: new SqliteScheduleStore({ path }),
    bindings: () => new SqliteBindingStore(bindings),
  };
}
