import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { JOURNAL_DATABASES, MYSQL_URL, PG_URL, type JournalDatabase } from '../helpers/journal-databases.js';
import { startJournalRedis, type JournalRedis } from '../helpers/journal-redis.js';

// Schedules are kept in every store, and journaled, so a Redis loss restores schedules too.
let redis: JournalRedis;
beforeAll(async () => {
  redis = await startJournalRedis();
});
afterAll(async () => {
  await redis?.stop();
});

describe.each(JOURNAL_DATABASES)('schedules journaled on %s', (dialect, makeDatabase) => {
  let db: JournalDatabase;
  let runtime: DelayqRuntime | undefined;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await runtime?.close();
    await db?.drop();
  });

  const start = async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        store: { kind: 'redis' },
        redis: { url: redis.url, prefix: `t${randomUUID().slice(0, 8)}` },
        journal:
          dialect === 'postgres'
            ? { kind: 'postgres', url: PG_URL, schema: db.name }
            : { kind: 'mysql', url: `${MYSQL_URL}/${db.name}` },
        schedules: { leadMs: 500, refreshIntervalMs: 200 },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    return runtime;
  };

  it('a wiped Redis gets its schedules back from the journal (not the deleted one), and they fire again', async () => {
    const node = await start();
    await node.schedules.put('every-second', { topic: 'sched-j', everyMs: 1000, job: { body: { n: 1 } } });
    await node.schedules.put('nightly', { topic: 'sched-n', cron: '0 0 2 * * *', timeZone: 'Europe/Berlin' });
    await node.schedules.setPaused('nightly', true);
    await node.schedules.put('gone', { topic: 'sched-g', everyMs: 60_000 });
    await node.schedules.delete('gone');
    // It fires before the loss (its cursor moves, and the journal follows).
    const before = await node.service.reserve({ topics: ['sched-j'], count: 1, waitMs: 10_000 });
    expect(before).toHaveLength(1);
    const fired = (await node.schedules.get('every-second')).fired;
    expect(fired).toBeGreaterThan(0);

    await redis.flushAll();
    expect(await node.schedules.store.list()).toEqual([]);
    const wipedAt = node.service.clock.now();
    await node.service.journal.restore({ expire: true });

    const back = await node.schedules.list();
    expect(back.map((s) => s.name)).toEqual(['every-second', 'nightly']);
    expect(back.find((s) => s.name === 'nightly')).toMatchObject({ paused: true, cron: '0 0 2 * * *' });
    expect((await node.schedules.get('every-second')).fired).toBeGreaterThanOrEqual(fired);
    // And firing: a tick after the wipe is pushed and delivered.
    const after = await node.service.reserve({ topics: ['sched-j'], count: 1, waitMs: 10_000 });
    expect(after).toHaveLength(1);
    expect(after[0]!.job.id).toMatch(/^every-second~\d+$/);
    expect(after[0]!.job.runAt).toBeGreaterThan(wipedAt - 1000);
  });

  it('keeps the newest copy whatever order writes arrive in; a deletion is not undone by a late write', async () => {
    const journal = db.journal();
    await journal.open();
    try {
      const row = (revision: number, cursorAt: number, record: string | null, createdAt = 1000) => ({
        name: 'order',
        createdAt,
        revision,
        cursorAt,
        record,
      });
      const kept = async () => (await journal.listSchedules()).filter((s) => s.name === 'order').map((s) => s.record);
      await journal.writeSchedules([row(2, 5000, 'r2@5000')]);
      await journal.writeSchedules([row(2, 4000, 'r2@4000')]); // a late cursor move
      await journal.writeSchedules([row(1, 9000, 'r1@9000')]); // a write of an older revision
      expect(await kept()).toEqual(['r2@5000']);
      await journal.writeSchedules([row(3, 5000, null)]); // deleted
      await journal.writeSchedules([row(2, 6000, 'r2@6000')]); // a move that raced the deletion
      expect(await kept()).toEqual([]);
      await journal.writeSchedules([row(1, 7000, 'new', 2000)]); // created again later: a new life
      expect(await kept()).toEqual(['new']);
    } finally {
      await journal.close();
    }
  });
});
