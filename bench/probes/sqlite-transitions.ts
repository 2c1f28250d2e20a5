// The embedded store's transitions measured one at a time, straight on SqliteStore (no service): N jobs due at
// one instant are pushed (1000 a call), promoted (the scheduler's batch), reserved BATCH at a time and finished
// BATCH at a time (finishMany), as a burst's drain does. Per transition: CPU µs per job (process.cpuUsage) and
// wall µs per job (the difference is the file system: WAL writes and checkpoint fsyncs).
// Usage: npx tsx bench/probes/sqlite-transitions.ts [JOBS=50000] [ROUNDS=1] [BATCH=100]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { NewJob } from '../../src/core/job.js';
import type { RetryPolicy } from '../../src/core/job.js';

const jobs = Number(process.argv[2] ?? 50_000);
const rounds = Number(process.argv[3] ?? 1);
/** Jobs per reserve and per finishMany call (a Worker lane asks for its own slots only). */
const batch = Number(process.argv[4] ?? 100);
const RETRY: RetryPolicy = {
  maxAttempts: 5,
  backoff: { type: 'list', delaysMs: [240_000, 600_000, 600_000, 3_600_000] },
};
const BODY = JSON.stringify({ pad: 'x'.repeat(80) });

function newJob(i: number, runAt: number): NewJob {
  return {
    id: `job-${String(i).padStart(9, '0')}`,
    topic: 'bench',
    tag: null,
    bizKey: null,
    body: BODY,
    runAt,
    priority: 0,
    ttrMs: 30_000,
    ttlMs: null,
    retry: RETRY,
  };
}

async function timed(label: string, run: () => Promise<number>): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const n = await run();
  const cpu = process.cpuUsage(cpu0);
  const wallUs = (performance.now() - t0) * 1000;
  console.log(
    `  ${label.padEnd(8)} CPU ${((cpu.user + cpu.system) / n).toFixed(1).padStart(6)} µs/job` +
      ` (system ${(cpu.system / n).toFixed(1)}), wall ${(wallUs / n).toFixed(1).padStart(6)} µs/job`,
  );
}

for (let round = 1; round <= rounds; round++) {
  const dir = mkdtempSync(join(tmpdir(), 'delayq-sqlite-probe-'));
  const store = new SqliteStore({ path: join(dir, 'probe.db'), nodeId: 'probe' });
  await store.open();
  // Experiments: PRAGMAS="cache_size=-65536;mmap_size=268435456" (applied after the store's own).
  const db = (store as unknown as { db: { pragma(p: string): unknown } }).db;
  for (const pragma of (process.env.PRAGMAS ?? '').split(';').filter(Boolean)) db.pragma(pragma);
  const runAt = 1_000_000;
  console.log(`round ${round}: ${jobs} jobs`);
  await timed('push', async () => {
    for (let i = 0; i < jobs; i += 1000)
      await store.pushMany(
        Array.from({ length: Math.min(1000, jobs - i) }, (_, k) => newJob(i + k, runAt)),
        runAt - 1,
      );
    return jobs;
  });
  await timed('promote', async () => {
    let moved = 0;
    for (;;) {
      const { count } = await store.promoteDue(runAt, 1000);
      moved += count;
      if (count < 1000) return moved;
    }
  });
  const held: { id: string; token: string }[][] = [];
  await timed('reserve', async () => {
    let n = 0;
    for (;;) {
      const { reservations: got } = await store.reserve(['bench'], batch, runAt + 1);
      if (got.length === 0) return n;
      n += got.length;
      held.push(got.map((r) => ({ id: r.job.id, token: r.token })));
    }
  });
  await timed('finish', async () => {
    let n = 0;
    for (const batch of held) n += (await store.finishMany(batch, runAt + 2)).length;
    return n;
  });
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
