/** /metrics with a PostgreSQL journal: the journal write lag histogram counts every job row committed, by mode. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { parseMetrics } from '../../src/observe/metrics-text.js';
import { createRuntime, type DelayqRuntime } from '../../src/runtime.js';
import { buildApp, closeGracefully, type DelayqApp } from '../../src/server/app.js';
import { http, waitFor } from '../helpers/http-server.js';
import { PG_URL, postgresJournalDatabase, type JournalDatabase } from '../helpers/journal-databases.js';

describe('/metrics: journal write lag', () => {
  let database: JournalDatabase;
  let runtime: DelayqRuntime;
  let app: DelayqApp;
  let url: string;

  beforeAll(async () => {
    database = await postgresJournalDatabase();
    const config = loadConfig({
      env: {},
      overrides: {
        sqlite: { path: ':memory:' },
        journal: { kind: 'postgres', url: PG_URL, schema: database.name },
      },
    });
    runtime = createRuntime(config);
    await runtime.start();
    app = await buildApp(runtime.service, config, { metrics: runtime.metrics, sinks: runtime.sinks });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    if (app) await closeGracefully(app, runtime, 100);
    await database?.drop();
  });

  /** count and sum of the histogram for one mode. */
  const lag = async (mode: string) => {
    const samples = parseMetrics(await (await fetch(`${url}/metrics`)).text());
    const value = (suffix: string) =>
      samples.find((s) => s.name === `delayq_journal_write_lag_seconds_${suffix}` && s.labels['mode'] === mode)
        ?.value ?? 0;
    return { count: value('count'), sum: value('sum') };
  };

  it('observes each push, reserve and finish as durable, each fail as async', async () => {
    const before = { durable: await lag('durable'), async: await lag('async') };
    for (let i = 0; i < 3; i++)
      expect((await http(url, 'POST', '/v1/jobs', { json: { topic: 'lag', id: `lag-${i}` } })).status).toBe(201);
    const reserved = await http(url, 'POST', '/v1/reserve', { json: { topics: ['lag'], count: 3 } });
    expect(reserved.body.reservations).toHaveLength(3);
    const [first, second] = reserved.body.reservations as { job: { id: string }; token: string }[];
    expect(
      (await http(url, 'POST', `/v1/jobs/${first!.job.id}/finish`, { json: { token: first!.token } })).status,
    ).toBe(200);
    // pushes, reserves and the finish were acknowledged after their commit: counted already
    const durable = await lag('durable');
    expect(durable.count - before.durable.count).toBe(7);
    expect(durable.sum).toBeGreaterThan(before.durable.sum);
    // a fail (retry) is journaled behind the store, within the async flush delay
    const failed = await http(url, 'POST', `/v1/jobs/${second!.job.id}/fail`, {
      json: { token: second!.token, error: 'lag', retryDelayMs: 60_000 },
    });
    expect(failed.status).toBe(200);
    await waitFor(async () => (await lag('async')).count - before.async.count === 1, 'one async row committed');
    const text = await (await fetch(`${url}/metrics`)).text();
    expect(text).toContain('# TYPE delayq_journal_write_lag_seconds histogram');
    expect(text).toMatch(/delayq_journal_write_lag_seconds_bucket\{le="\+Inf",mode="durable"\} \d+/);
  });
});
