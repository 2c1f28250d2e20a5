// Bulk cancel by selector (issue 23): `jobs` delayed jobs of one bizKey and tag, cancelled through
// POST /v1/jobs/bulk's service call slice after slice (1000 per call) until the cursor is exhausted, while
// a steady 1k/s stream of another topic's due jobs runs through the same service. Reported: the cancel's
// jobs/s, and the stream's lateness p99 before the cancel and during it (same run), so a spike shows as
// the second beside the first. Scenario "bulk-cancel" of bench/run.ts, on each delayq store.
import { fmt, summarize } from './lib.js';
import { table, type Results } from './results-table.js';
import { CONSUMER_CONCURRENCY } from './scenarios.js';
import type { DelayqSubject } from './subjects/delayq-subject.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const VICTIMS = 'bulk-victims';
const BIZ_KEY = 'order-42';
const PUSH_BATCH = 1000;
const STREAM_RATE = 1000;
const STREAM_LEAD_MS = 1000;
/** The stream runs this long before the cancel starts (the baseline window) and after it ends. */
const BASELINE_MS = 3000;

export interface BulkCancelOutcome {
  system: string;
  cancelled: number;
  jobsPerS: number;
  calls: number;
  p99Before: number;
  p99During: number;
  maxDuring: number;
  streamMissing: number;
}

export async function bulkCancel(subject: DelayqSubject, jobs: number): Promise<BulkCancelOutcome> {
  const service = subject.svc;
  const runAt = Date.now() + 30 * 60_000;
  for (let i = 0; i < jobs; i += PUSH_BATCH) {
    const n = Math.min(PUSH_BATCH, jobs - i);
    await service.pushBatch(
      Array.from({ length: n }, () => ({ topic: VICTIMS, runAt, bizKey: BIZ_KEY, tag: 'promo', body: {} })),
    );
  }
  const samples: { dueAt: number; late: number }[] = [];
  const consumer = await subject.consume(CONSUMER_CONCURRENCY, (dueAt) =>
    samples.push({ dueAt, late: Date.now() - dueAt }),
  );
  let producing = true;
  let produced = 0;
  const producer = (async () => {
    await sleep(100);
    const startedAt = Date.now();
    while (producing) {
      const shouldHave = Math.floor(((Date.now() - startedAt) * STREAM_RATE) / 1000) + 1;
      const batch: number[] = [];
      for (; produced < shouldHave; produced++)
        batch.push(startedAt + (produced * 1000) / STREAM_RATE + STREAM_LEAD_MS);
      await Promise.all(batch.map((dueAt) => subject.push(Math.round(dueAt))));
      await sleep(5);
    }
  })();
  let cancelled = 0;
  let calls = 0;
  let from = 0;
  let to = 0;
  try {
    await sleep(BASELINE_MS + STREAM_LEAD_MS);
    from = Date.now();
    let cursor: string | undefined;
    do {
      const slice = await service.jobApi.bulk({
        action: 'cancel',
        selector: { bizKey: BIZ_KEY },
        reason: 'bench',
        ...(cursor === undefined ? {} : { cursor }),
      });
      cancelled += slice.applied;
      calls++;
      cursor = slice.next ?? undefined;
    } while (cursor !== undefined);
    to = Date.now();
    await sleep(BASELINE_MS);
  } finally {
    producing = false;
    await producer;
    const deadline = Date.now() + STREAM_LEAD_MS + 10_000;
    while (samples.length < produced && Date.now() < deadline) await sleep(20);
    await consumer.stop();
  }
  const before = summarize(samples.filter((s) => s.dueAt < from).map((s) => s.late));
  const during = summarize(samples.filter((s) => s.dueAt >= from && s.dueAt <= to).map((s) => s.late));
  log(`bulk-cancel · ${subject.name}: ${fmt(cancelled)} cancelled in ${to - from} ms (${calls} calls)`);
  return {
    system: subject.name,
    cancelled,
    jobsPerS: (cancelled * 1000) / Math.max(1, to - from),
    calls,
    p99Before: before.p99,
    p99During: during.p99,
    maxDuring: during.max,
    streamMissing: produced - samples.length,
  };
}

/** The "bulk-cancel" scenario of bench/run.ts: each store in turn, `runs` times; a failure is reported, not fatal. */
export async function runBulkCancel(
  results: Results,
  failures: string[],
  subjects: readonly (() => DelayqSubject)[],
  options: { jobs: number; runs: number },
): Promise<void> {
  for (let run = 1; run <= options.runs; run++) {
    for (const make of subjects) {
      const subject = make();
      log(`run ${run}/${options.runs}: bulk cancel of ${fmt(options.jobs)} jobs by bizKey · ${subject.name}`);
      try {
        await subject.open();
        const o = await bulkCancel(subject, options.jobs);
        results.add('bulk-cancel', o.system, 'rate', o.jobsPerS);
        results.add('bulk-cancel', o.system, 'cancelled', o.cancelled);
        results.add('bulk-cancel', o.system, 'p99Before', o.p99Before);
        results.add('bulk-cancel', o.system, 'p99During', o.p99During);
        results.add('bulk-cancel', o.system, 'maxDuring', o.maxDuring);
        results.add('bulk-cancel', o.system, 'missing', o.streamMissing);
        if (o.cancelled !== options.jobs) failures.push(`bulk-cancel · ${o.system}: ${o.cancelled} of ${options.jobs}`);
      } catch (err) {
        failures.push(`bulk-cancel · ${subject.name}: ${(err as Error).message}`);
      } finally {
        await subject.close().catch(() => undefined);
      }
    }
  }
}

/** The BENCHMARKS.md section of the "bulk-cancel" scenario. */
export function bulkCancelSection(results: Results, mode: Record<string, number>): string {
  return `## Bulk cancel of ${fmt(mode['bulkCancel'] ?? 0)} jobs by bizKey, beside a 1k/s stream of another topic

${fmt(mode['bulkCancel'] ?? 0)} delayed jobs of one bizKey are cancelled through the job API's bulk call (\`POST /v1/jobs/bulk\`
in-process, \`{"action":"cancel","selector":{"bizKey":…}}\`, 1000 jobs per call, cursor to the end), while
one producer pushes 1k jobs/s of another topic due ${STREAM_LEAD_MS} ms later and one consumer takes them. Lateness of
that stream: p99 over jobs due in the ${BASELINE_MS / 1000} s before the cancel, and over jobs due while it ran.

${table(results, 'bulk-cancel', [
  { metric: 'rate', header: 'cancelled/s', unit: '/s' },
  { metric: 'p99Before', header: 'stream p99 before', unit: 'ms' },
  { metric: 'p99During', header: 'stream p99 during', unit: 'ms' },
  { metric: 'maxDuring', header: 'stream max during', unit: 'ms' },
  { metric: 'missing', header: 'stream missing' },
])}`;
}
