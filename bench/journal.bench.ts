/**
 * The SQL journal's cost: push throughput with the journal on PostgreSQL and on MariaDB (group commit of
 * concurrent single pushes, and batched pushes), against the inner store alone; and the time to restore
 * 1M jobs into an empty inner store.
 *
 *   npx tsx bench/journal.bench.ts                 # Redis inner store (own redis-server, a free port in 7100–7149)
 *   BENCH_INNER=sqlite npx tsx bench/journal.bench.ts   # SQLite (:memory:) inner store
 *   BENCH_RESTORE_JOBS=200000 BENCH_PUSH_JOBS=20000 npx tsx bench/journal.bench.ts
 *
 * Databases: a fresh schema (PostgreSQL) / database (MariaDB) with a random suffix, dropped at the end.
 */
import { hostname, loadavg } from 'node:os';
import { JournaledStore } from '../src/journal/journaled-store.js';
import type { Journal, JournalJob } from '../src/journal/journal.js';
import { newJournalJob } from '../src/journal/journal-jobs.js';
import type { Store } from '../src/store/store.js';
import {
  mysqlJournalDatabase,
  postgresJournalDatabase,
  type JournalDatabase,
} from '../test/helpers/journal-databases.js';
import { aJob } from '../test/helpers/jobs.js';
import { makeInnerStore, stopInnerServers } from './journal-inner.js';

const PUSH_JOBS = Number(process.env.BENCH_PUSH_JOBS ?? 50_000);
const RESTORE_JOBS = Number(process.env.BENCH_RESTORE_JOBS ?? 1_000_000);
const INNER = process.env.BENCH_INNER ?? 'redis';
const BODY = JSON.stringify({ order: 'A-12345', payload: 'x'.repeat(60) }); // ≈ 100 bytes

const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en-US')}/s`;

/** `producers` callers, each pushing one job at a time (the HTTP API's common case): group commit at work. */
async function pushSingles(store: Store, total: number, producers: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: producers }, async () => {
      while (next < total) {
        next++;
        const now = Date.now();
        await store.pushMany([aJob({ topic: 'bench', now, delayMs: 60_000, body: BODY })], now);
      }
    }),
  );
  return performance.now() - started;
}

/** Batches of `size` jobs, `inFlight` at once. */
async function pushBatches(store: Store, total: number, size: number, inFlight: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) {
        const n = Math.min(size, total - next);
        next += n;
        const now = Date.now();
        await store.pushMany(
          Array.from({ length: n }, () => aJob({ topic: 'bench', now, delayMs: 60_000, body: BODY })),
          now,
        );
      }
    }),
  );
  return performance.now() - started;
}

async function fillJournal(journal: Journal, total: number, now: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < total; i += 10_000) {
    const rows: JournalJob[] = [];
    for (let k = i; k < Math.min(total, i + 10_000); k++) {
      rows.push(
        newJournalJob(
          aJob({ id: `r-${k}`, topic: 'restore', now, delayMs: 60_000 + (k % 3_000_000), body: BODY }),
          now,
          true,
        ),
      );
    }
    await journal.write({ inserts: rows, upserts: [], history: [] });
  }
  return performance.now() - started;
}

async function benchDatabase(db: JournalDatabase, pushLines: string[], restoreLines: string[]): Promise<void> {
  const label = `${INNER} + journal on ${db.dialect === 'postgres' ? 'PostgreSQL 15' : 'MariaDB 10.11'}`;
  {
    const store = new JournaledStore(await makeInnerStore(INNER), db.journal({ maxConnections: 8 }), {
      nodeId: 'bench',
    });
    await store.open();
    const singles = Math.min(PUSH_JOBS, 20_000);
    const ms1 = await pushSingles(store, singles, 64);
    const ms2 = await pushBatches(store, PUSH_JOBS, 1000, 4);
    pushLines.push(`| ${label} | ${rate(singles, ms1)} | ${rate(PUSH_JOBS, ms2)} |`);
    await store.close();
  }
  await db.truncate();
  {
    const inner = await makeInnerStore(INNER);
    const journal = db.journal({ maxConnections: 8 });
    const store = new JournaledStore(inner, journal, { nodeId: 'bench', horizonMs: 3_600_000 });
    await store.open();
    const now = Date.now();
    const fillMs = await fillJournal(journal, RESTORE_JOBS, now);
    const summary = await store.restore({ expire: true }, now);
    const again = await store.restore({ expire: true }, now);
    restoreLines.push(
      `| ${label} | ${RESTORE_JOBS.toLocaleString('en-US')} | ${(fillMs / 1000).toFixed(1)} s | ${(summary.durationMs / 1000).toFixed(1)} s (${rate(summary.restored, summary.durationMs)}) | ${(again.durationMs / 1000).toFixed(1)} s, restored ${again.restored} |`,
    );
    await store.close();
  }
}

async function main(): Promise<void> {
  const push: string[] = [];
  const restore: string[] = [];
  // Baseline: the inner store alone.
  {
    const inner = await makeInnerStore(INNER);
    await inner.open();
    const singles = Math.min(PUSH_JOBS, 20_000);
    const ms1 = await pushSingles(inner, singles, 64);
    const ms2 = await pushBatches(inner, PUSH_JOBS, 1000, 4);
    push.push(`| ${INNER} alone (no journal) | ${rate(singles, ms1)} | ${rate(PUSH_JOBS, ms2)} |`);
    await inner.close();
  }
  for (const make of [postgresJournalDatabase, mysqlJournalDatabase]) {
    const db = await make();
    try {
      await benchDatabase(db, push, restore);
    } finally {
      await db.drop();
    }
  }
  console.log(
    `host ${hostname()}, inner ${INNER}, load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(`\n| store | push, 64 producers × 1 job | push, batches of 1000 × 4 in flight |\n|---|---|---|`);
  console.log(push.join('\n'));
  console.log(
    `\n| store | jobs | journal fill (direct) | restore into an empty inner store | restore again (idempotent) |\n|---|---|---|---|---|`,
  );
  console.log(restore.join('\n'));
  await stopInnerServers();
}

await main();
