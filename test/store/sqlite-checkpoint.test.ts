import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { aJob } from '../../src/testing/jobs.js';

const dir = mkdtempSync(join(tmpdir(), 'delayq-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Commits `count` transactions of 10 pushes each. */
async function pushInCommits(store: SqliteStore, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const jobs = Array.from({ length: 10 }, () => aJob({ delayMs: 60_000 }));
    await store.pushMany(jobs, Date.now());
    ids.push(...jobs.map((job) => job.id));
  }
  return ids;
}

const walBytes = (path: string): number => statSync(`${path}-wal`).size;

/** This process's open descriptors of the file at `path` (Linux's /proc). */
const descriptorsOf = (path: string): number => {
  const target = realpathSync(path); // /proc names the file by its real path
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === target;
    } catch {
      return false; // closed since the listing
    }
  }).length;
};

describe('SqliteStore WAL checkpoints', () => {
  it('never checkpoints on its own connection; the worker keeps the WAL from growing', async () => {
    const path = join(dir, 'bounded.db');
    const store = new SqliteStore({ path, nodeId: 'n' });
    await store.open();
    try {
      const db = (store as unknown as { db: Database.Database }).db;
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await pushInCommits(store, 50);
      await store.checkpointed();
      const afterFirst = walBytes(path);
      // With every frame copied back, the next writer starts the WAL from its beginning: the file stays the
      // size of one round's frames, where without checkpoints each round would add as much again.
      for (let round = 0; round < 3; round++) {
        await pushInCommits(store, 50);
        await store.checkpointed();
      }
      expect(walBytes(path)).toBeLessThan(afterFirst * 1.5);
    } finally {
      await store.close();
    }
  });

  it('keeps the WAL under its bound during a sustained load of 100k pushes', async () => {
    const path = join(dir, 'sustained.db');
    const bound = 8 * 1024 * 1024;
    const store = new SqliteStore({ path, nodeId: 'n', walTruncateBytes: bound });
    await store.open();
    try {
      // Batches back to back, no pause for the checkpoints: a passive checkpoint alone never catches up and
      // the WAL grew past 60 MB here. The store empties it once the worker reports it past the bound, so it
      // stays within the bound plus the frames of the commits between two reports.
      // The worker's RESTART runs while the store holds its commits, never on the store's connection.
      const commits = (store as unknown as { commits: GroupCommit }).commits;
      const hold = commits.hold.bind(commits);
      // Each hold comes right after the worker's pass and fsync with commits running (checkpointer.ts).
      const worker = (store as unknown as { checkpointer: { worker: Worker } }).checkpointer.worker;
      let lastMessage: unknown;
      worker.prependListener('message', (message: unknown) => (lastMessage = message));
      let holds = 0;
      const heldAfter: unknown[] = [];
      commits.hold = () => {
        holds++;
        heldAfter.push(lastMessage);
        hold();
      };
      let largest = 0;
      for (let i = 0; i < 200; i++) {
        await store.pushMany(
          Array.from({ length: 500 }, () => aJob({ delayMs: 86_400_000 })),
          Date.now(),
        );
        largest = Math.max(largest, walBytes(path));
      }
      expect(largest).toBeLessThan(bound * 3);
      expect(holds).toBeGreaterThan(0);
      expect(heldAfter).toEqual(Array.from({ length: holds }, () => ({ prepared: true })));
      const db = (store as unknown as { db: Database.Database }).db;
      expect((db.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number }).n).toBe(100_000);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('queues writes while its commits are held, and commits them in order once resumed', async () => {
    const store = new SqliteStore({ path: join(dir, 'held.db'), nodeId: 'n' });
    await store.open();
    try {
      const commits = (store as unknown as { commits: GroupCommit }).commits;
      commits.hold();
      const first = aJob({ delayMs: 60_000 });
      const second = aJob({ delayMs: 60_000 });
      const answered: string[] = [];
      const pushes = [first, second].map((job) =>
        store.pushMany([job], Date.now()).then(() => void answered.push(job.id)),
      );
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toEqual([]);
      expect(await store.get(first.id)).toBeNull();
      commits.resume();
      await Promise.all(pushes);
      expect(answered).toEqual([first.id, second.id]);
      expect((await store.get(second.id))?.id).toBe(second.id);
    } finally {
      await store.close();
    }
  });

  it('keeps what was committed when the file is reopened after checkpoints by the worker', async () => {
    const path = join(dir, 'reopen.db');
    const store = new SqliteStore({ path, nodeId: 'n' });
    await store.open();
    const ids = await pushInCommits(store, 30);
    await store.checkpointed();
    await store.close();
    const reader = new Database(path, { readonly: true });
    try {
      const count = reader.prepare('SELECT COUNT(*) AS n FROM jobs').get() as { n: number };
      expect(count.n).toBe(ids.length);
    } finally {
      reader.close();
    }
  });

  it("keeps the database file's descriptor the worker fsyncs open until its connection has closed", async () => {
    const path = join(dir, 'descriptor.db');
    const store = new SqliteStore({ path, nodeId: 'n' });
    await store.open();
    await pushInCommits(store, 5);
    await store.checkpointed(); // the worker is up: its connection is open
    // one for each connection (the store's, the worker's), and the descriptor the worker fsyncs
    expect(descriptorsOf(path)).toBe(3);
    await store.close();
    expect(descriptorsOf(path)).toBe(0);
  });
});
