import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedSqliteBacklog } from '../../bench/startup/seed-sqlite.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { buildApp } from '../../src/server/app.js';
import { sqliteBackend } from '../../src/store/sqlite/sqlite-backend.js';
import type { Store } from '../../src/store/store.js';
import { planOf, recordStatements, rowsOf, scannedBacklogTable } from '../helpers/sqlite-statement-log.js';

/** Enough jobs that a statement walking them shows (a page, a counter row or an index head is far less). */
const BACKLOG = 100_000;
/** The most a start may touch (64 rows in 58 statements here): each a seek or a small table. */
const MOST_TOUCHED = 300;

const dir = mkdtempSync(join(tmpdir(), 'delayq-start-cost-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves after the store's first promoteDue (the timer's first tick) has answered. */
function firstTick(store: Store): Promise<void> {
  const promoteDue = store.promoteDue.bind(store);
  return new Promise((resolve) => {
    store.promoteDue = async (...args) => {
      const answer = await promoteDue(...args);
      resolve();
      return answer;
    };
  });
}

describe('the embedded store at start', () => {
  it(`opens on ${BACKLOG} jobs, runs its first timer tick, answers /ready, /v1/stats and /metrics, scanning no backlog table`, async () => {
    const path = join(dir, 'delayq.db');
    const now = Date.now();
    seedSqliteBacklog(path, BACKLOG, now);
    const config = loadConfig({ env: {}, overrides: { sqlite: { path } } });
    const backend = sqliteBackend({ path, nodeId: 'start-cost' });
    const ticked = firstTick(backend.jobs);

    const { value: answers, ran } = await recordStatements(async () => {
      const runtime = createRuntime(config, { backend });
      await runtime.start();
      await ticked;
      // The timer's other work runs when it falls due; run it once here, as at a first wake that finds it due.
      await runtime.service.store.listLapsed(now, config.scheduler.batchSize);
      await runtime.service.store.expireDue(now, config.scheduler.batchSize);
      await runtime.service.store.purge(now - config.scheduler.retentionMs, config.scheduler.batchSize);
      await runtime.service.store.purgeRetained(now, config.scheduler.batchSize);
      const app = await buildApp(runtime.service, config, { metrics: runtime.metrics, sinks: runtime.sinks });
      try {
        const ready = await app.inject({ url: '/ready' });
        const stats = await app.inject({ url: '/v1/stats' });
        const metrics = await app.inject({ url: '/metrics' });
        return { ready: ready.statusCode, stats: stats.json(), metrics: metrics.statusCode };
      } finally {
        await app.close();
        await runtime.close();
      }
    });

    expect(answers.ready).toBe(200);
    expect(answers.metrics).toBe(200);
    const delayed = (answers.stats as { topics: { counts: { delayed: number } }[] }).topics.reduce(
      (n, t) => n + t.counts.delayed,
      0,
    );
    expect(delayed).toBe(BACKLOG - BACKLOG / 50 - BACKLOG / 1000);

    const db = new Database(path, { readonly: true });
    try {
      const onJobs = ran.filter((s) => s.file === path);
      // exec runs unplanned text (migrations, transaction control): none of it may name a backlog table.
      const execs = onJobs.filter((s) => s.exec && /\b(jobs|job_history|job_extras|job_numbers)\b/.test(s.source));
      expect(execs.map((s) => s.source)).toEqual([]);
      const seen = new Set<string>();
      const scans: string[] = [];
      let touched = 0;
      for (const statement of onJobs.filter((s) => !s.exec)) {
        const plan = planOf(db, statement);
        if (plan.length === 0) touched += 1;
        for (const detail of plan) {
          const scanned = scannedBacklogTable(detail);
          touched += scanned ? rowsOf(db, scanned) : 1;
          if (scanned && !seen.has(statement.source)) scans.push(`${detail}: ${statement.source}`);
        }
        seen.add(statement.source);
      }
      expect(scans).toEqual([]);
      expect(touched).toBeLessThanOrEqual(MOST_TOUCHED);
    } finally {
      db.close();
    }
  });
});
