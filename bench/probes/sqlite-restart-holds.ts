// How long the embedded store holds its commits for the WAL's RESTART during a bulk cancel at scale: the bare
// store on a SQLite file, JOBS of bench:scale's jobs pushed (1,000 a call, 4 in flight), then CANCEL of topic
// t7's jobs cancelled 50 a call (as a bulk chunk), a turn between calls. Reports the cancel's rate and main-thread
// CPU a job, the group commit's holds (count, p50, p99, max, total held) and its flushes (one transaction each).
// Usage: [CANCEL=100000] [WAL_MB=64] npx tsx bench/probes/sqlite-restart-holds.ts [JOBS=2000000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewJob, RetryPolicy } from '../../src/core/job.js';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { scaleJob } from '../scale/jobs.js';

const jobs = Number(process.argv[2] ?? 2_000_000);
const cancels = Number(process.env.CANCEL ?? 100_000);
const RETRY: RetryPolicy = { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 1000 } };

// The group commit's holds and flushes, timed from outside (recorded during the cancel only).
const holds: number[] = [];
const flushes: number[] = [];
let recording = false;
let heldAt = 0;
type Timed = { held: boolean; hold(): void; resume(): void; flush(): void };
const commit = GroupCommit.prototype as unknown as Timed;
const { hold, resume, flush } = commit;
commit.hold = function (this: Timed) {
  if (!this.held) heldAt = performance.now();
  hold.call(this);
};
commit.resume = function (this: Timed) {
  if (this.held && recording) holds.push(performance.now() - heldAt);
  resume.call(this);
};
commit.flush = function (this: Timed) {
  const started = performance.now();
  flush.call(this);
  if (recording) flushes.push(performance.now() - started);
};

const dir = mkdtempSync(join(tmpdir(), 'delayq-restart-holds-'));
const walMb = process.env.WAL_MB ? Number(process.env.WAL_MB) : undefined;
const store = new SqliteStore({
  path: join(dir, 'p.db'),
  nodeId: 'probe',
  ...(walMb ? { walTruncateBytes: walMb * 2 ** 20 } : {}),
});
await store.open();
try {
  const t0 = Date.now();
  const toCancel: string[] = [];
  let next = 0;
  const pusher = async (): Promise<void> => {
    while (next < jobs) {
      const from = next;
      next = Math.min(jobs, next + 1000);
      const batch: NewJob[] = [];
      for (let n = from; n < next; n++) {
        const job = scaleJob(n, t0);
        const id = `j${String(n).padStart(9, '0')}`;
        if (job.topic === 't7') toCancel.push(id);
        batch.push({
          id,
          topic: job.topic,
          tag: null,
          bizKey: job.bizKey,
          body: JSON.stringify(job.body),
          runAt: job.runAt,
          priority: 0,
          ttrMs: 30_000,
          ttlMs: null,
          retry: RETRY,
        });
      }
      await store.pushMany(batch, Date.now());
    }
  };
  const filling = performance.now();
  await Promise.all([pusher(), pusher(), pusher(), pusher()]);
  console.log(`filled ${jobs} at ${Math.round(jobs / ((performance.now() - filling) / 1000))}/s`);
  await new Promise((resolve) => setTimeout(resolve, 2000));

  const limit = Math.min(cancels, toCancel.length);
  recording = true;
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < limit; i += 50) {
    await Promise.all(toCancel.slice(i, Math.min(limit, i + 50)).map((id) => store.cancel(id, Date.now())));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  recording = false;

  const pct = (xs: number[], p: number): string => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(1) : '-';
  };
  const total = (xs: number[]): string => xs.reduce((a, b) => a + b, 0).toFixed(0);
  console.log(
    `cancelled ${limit} at ${Math.round(limit / seconds)}/s, main-thread CPU ${((cpu.user + cpu.system) / limit).toFixed(0)} µs a job`,
  );
  console.log(
    `holds ${holds.length}: p50 ${pct(holds, 0.5)}, p99 ${pct(holds, 0.99)}, max ${pct(holds, 1)} ms; held ${total(holds)} of ${(seconds * 1000).toFixed(0)} ms`,
  );
  console.log(
    `flushes ${flushes.length}: p50 ${pct(flushes, 0.5)}, p99 ${pct(flushes, 0.99)}, max ${pct(flushes, 1)} ms`,
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
