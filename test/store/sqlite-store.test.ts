import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/sqlite/migrate.js';
import { SQL } from '../../src/store/sqlite/statements.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';
import { backendContract, storeContract } from '../../src/testing/index.js';
import { sqliteBackend } from '../../src/store/sqlite/sqlite-backend.js';
import { sqliteReadCost } from '../helpers/sqlite-read-cost.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeContract('sqlite (:memory:)', () => new SqliteStore({ path: ':memory:', nodeId: 'test-node' }), {
  readCost: (store) => sqliteReadCost(store as SqliteStore),
});
// The embedded backend as `delayq serve` runs it: a job file, its schedules, the bindings beside it.
backendContract(
  'sqlite (file, WAL)',
  () => sqliteBackend({ path: join(mkdtempSync(join(dir, 'backend-')), 'delayq.db'), nodeId: 'test-node' }),
  { readCost: (store) => sqliteReadCost(store as SqliteStore) },
);

describe('SqliteStore', () => {
  it('keeps jobs across a close and reopen of the same file, and migrates only once', async () => {
    const path = join(dir, 'reopen.db');
    const first = new SqliteStore({ path, nodeId: 'a' });
    await first.open();
    const job = aJob({ delayMs: 1000 });
    await first.pushMany([job], job.runAt - 1000);
    await first.close();
    const second = new SqliteStore({ path, nodeId: 'b' });
    await second.open();
    expect(await second.get(job.id)).toMatchObject({ id: job.id, state: 'delayed' });
    expect((await second.history(job.id))[0]!.node).toBe('a');
    await second.close();
  });

  it("reserve's ttl check searches only the topic's ready jobs that have a ttl, not all its ready jobs", () => {
    // Walking every ready job of the topic on each reserve made a burst's drain quadratic.
    const db = new Database(':memory:');
    migrate(db);
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${SQL.expireReadyOfTopics}`)
      .all({ now: 1, topics: '["t"]' })
      .map((r) => (r as { detail: string }).detail)
      .join(' | ');
    db.close();
    expect(plan).toContain('jobs_ready_expiry_by_topic (topic=? AND expire_at');
  });

  it('a reserve over several topics serves them in ready order one job at a time as in batches', async () => {
    const store = new SqliteStore({ path: ':memory:', nodeId: 'n' });
    await store.open();
    const now = Date.UTC(2026, 0, 1);
    const jobs = ['a', 'b', 'c'].flatMap((topic, ti) =>
      Array.from({ length: 20 }, (_, i) =>
        aJob({ id: `${topic}${i}`, topic, now, runAt: now - 100 + ti, priority: i % 4 }),
      ),
    );
    await store.pushMany(jobs, now);
    const order = [...jobs]
      .sort((x, y) => x.priority - y.priority || x.runAt - y.runAt || (x.id < y.id ? -1 : 1))
      .map((j) => j.id);
    const got: string[] = [];
    for (const count of [1, 1, 5, 20, 100])
      got.push(...(await store.reserve(['c', 'a', 'b'], count, now + 1)).reservations.map((r) => r.job.id));
    expect(got).toEqual(order);
    await store.close();
  });
});
