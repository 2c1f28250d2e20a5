import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';

/** The inner store a journal benchmark runs over: SQLite in memory (default). */
export async function makeInnerStore(kind: string, _purpose: string): Promise<Store> {
  if (kind === 'sqlite') return new SqliteStore({ path: ':memory:', nodeId: 'bench' });
  throw new Error(`unknown BENCH_INNER ${kind} (sqlite)`);
}
