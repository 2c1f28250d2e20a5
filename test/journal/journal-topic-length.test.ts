import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createService } from '../../src/create-service.js';
import { LIMITS } from '../../src/core/limits.js';
import { JOURNAL_DATABASES, MYSQL_URL, PG_URL, type JournalDatabase } from '../helpers/journal-databases.js';

// A topic may be as long as a beanstalkd tube name (200 characters, core/limits.ts): the journal keeps it whole,
// also for a job only the journal holds (due beyond the horizon), read back by get and by a list of its topic.
describe.each(JOURNAL_DATABASES)('a topic of the longest length in the journal on %s', (dialect, makeDatabase) => {
  let db: JournalDatabase;
  beforeAll(async () => {
    db = await makeDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('is stored and read back whole', async () => {
    expect(LIMITS.topicMaxLength).toBe(200);
    const service = createService(
      loadConfig({
        env: {},
        overrides: {
          sqlite: { path: ':memory:' },
          journal:
            dialect === 'postgres'
              ? { kind: 'postgres', url: PG_URL, schema: db.name }
              : { kind: 'mysql', url: `${MYSQL_URL}/${db.name}` },
        },
      }),
    );
    await service.start();
    try {
      const topic = `t${'x'.repeat(LIMITS.topicMaxLength - 1)}`;
      const { job } = await service.push({ topic, id: 'long-topic', delayMs: 40 * 86_400_000 });
      expect(job.topic).toBe(topic);
      expect((await service.get('long-topic')).topic).toBe(topic);
      const rows = await db.query<{ topic: string }>(`SELECT topic FROM delayq_jobs WHERE id = 'long-topic'`);
      expect(rows.map((r) => r.topic)).toEqual([topic]);
      expect((await service.list({ topic, limit: 10 })).jobs.map((j) => j.id)).toEqual(['long-topic']);
    } finally {
      await service.close();
    }
  });
});
