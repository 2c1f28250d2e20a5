/**
 * bulkBySelector's chunks on a real store (SQLite in memory): the next chunk's list page is read while this
 * chunk's transitions run, the whole call still applies each matching job once, and a page read that fails
 * while transitions run is the call's error (not an unhandled rejection).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bulkBySelector } from '../../src/store/bulk-by-selector.js';
import type { BulkRequest } from '../../src/store/bulk.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { aJob } from '../../src/testing/jobs.js';

const NOW = Date.UTC(2026, 0, 1);
const JOBS = 25;
const CHUNK = 10;

const cancelAll = (limit: number): BulkRequest => ({
  action: { kind: 'cancel', reason: 'test' },
  selector: { topic: 'orders', bizKey: null, tag: null, state: null, dueFrom: null, dueTo: null },
  limit,
  cursor: null,
  dryRun: false,
});

describe('bulkBySelector', () => {
  let store: SqliteStore;
  /** What the store was asked, in order: 'list <cursor>', 'cancel <id>' when asked, 'cancelled <id>' when answered. */
  let calls: string[];
  let failList: ((cursor: string | undefined) => boolean) | undefined;
  let observed: Store;

  beforeEach(async () => {
    store = new SqliteStore({ path: ':memory:', nodeId: 'test' });
    await store.open();
    const ids = Array.from({ length: JOBS }, (_, i) => `job-${String(i).padStart(2, '0')}`);
    await store.pushMany(
      ids.map((id) => aJob({ id, now: NOW, delayMs: 60_000 })),
      NOW,
    );
    calls = [];
    failList = undefined;
    observed = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'list')
          return async (query: Parameters<Store['list']>[0]) => {
            calls.push(`list ${query.cursor ?? ''}`);
            if (failList?.(query.cursor)) throw new Error('the store went away');
            return target.list(query);
          };
        if (key === 'cancel')
          return async (id: string, ...rest: [number]) => {
            calls.push(`cancel ${id}`);
            const outcome = await target.cancel(id, ...rest);
            calls.push(`cancelled ${id}`);
            return outcome;
          };
        return Reflect.get(target, key, receiver);
      },
    });
  });
  afterEach(() => store.close());

  it("reads the next page while this chunk's cancels run, and cancels every job once", async () => {
    const result = await bulkBySelector(observed, cancelAll(JOBS), NOW, CHUNK);
    expect(result).toMatchObject({ matched: JOBS, applied: JOBS, next: null });
    expect(result.cancelled).toHaveLength(JOBS);
    // the second page is asked for before the first chunk's last cancel is answered
    const secondList = calls.findIndex((c, i) => i > 0 && c.startsWith('list '));
    expect(secondList).toBeGreaterThan(0);
    expect(calls.indexOf('cancelled job-09')).toBeGreaterThan(secondList);
    expect(calls.filter((c) => c.startsWith('list '))).toEqual(['list ', 'list job-09', 'list job-19']);
    expect(new Set(calls.filter((c) => c.startsWith('cancel ')))).toHaveProperty('size', JOBS);
    const left = await store.list({ topic: 'orders', limit: 100 });
    expect(left.jobs.every((j) => j.state === 'cancelled')).toBe(true);
  });

  it('reads no page past its limit: the cursor continues where the call stopped', async () => {
    const first = await bulkBySelector(observed, cancelAll(CHUNK * 2), NOW, CHUNK);
    expect(first).toMatchObject({ matched: CHUNK * 2, applied: CHUNK * 2, next: 'job-19' });
    expect(calls.filter((c) => c.startsWith('list '))).toEqual(['list ', 'list job-09']);
    const rest = await bulkBySelector(observed, { ...cancelAll(JOBS), cursor: first.next }, NOW, CHUNK);
    expect(rest).toMatchObject({ matched: JOBS - CHUNK * 2, applied: JOBS - CHUNK * 2, next: null });
  });

  it("fails with the page read's error when it fails while a chunk's cancels run; nothing is unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      failList = (cursor) => cursor === 'job-09';
      await expect(bulkBySelector(observed, cancelAll(JOBS), NOW, CHUNK)).rejects.toThrow('the store went away');
      // the first chunk, already under way when the read failed, was applied; nothing after it
      expect(calls.filter((c) => c.startsWith('cancelled '))).toHaveLength(CHUNK);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
