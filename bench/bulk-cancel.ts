// Bulk cancel by selector: `jobs` delayed jobs of one bizKey and tag, cancelled through
// POST /v1/jobs/bulk's service call slice after slice (1000 per call) until the cursor is exhausted, while
// a steady 1k/s stream of another topic's due jobs runs through the same service. Reported: the cancel's
// jobs/s, and the stream's lateness p99 before the cancel and during it (same run), so a spike shows as
// the second beside the first. Scenario "bulk-cancel" of bench/run.ts, on each delayq store.
import { rotate } from './host-load.js';
import { fmt, summarize } from './lib.js';
import type { Results } from './results.js';
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
      const slice = await service.bulk.apply({
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

/** A round of a scenario, as bench/run.ts opens one (the host's load recorded around it). */
export type InRound = (run: number, fn: (order: string[]) => Promise<void>) => Promise<void>;

/** The "bulk-cancel" scenario of bench/run.ts: the stores in an order rotated each round; a failure is reported, not fatal. */
export async function runBulkCancel(
  results: Results,
  failures: string[],
  subjects: readonly (() => DelayqSubject)[],
  options: { jobs: number; runs: number },
  inRound: InRound = (_run, fn) => fn([]),
): Promise<void> {
  for (let run = 1; run <= options.runs; run++) {
    await inRound(run, async (order) => {
      for (const make of rotate(subjects, run)) {
        const subject = make();
        order.push(subject.name);
        log(`round ${run}/${options.runs}: bulk cancel of ${fmt(options.jobs)} jobs by bizKey · ${subject.name}`);
        try {
          await subject.open();
          const o = await bulkCancel(subject, options.jobs);
          const add = (metric: string, value: number) => results.add('bulk-cancel', o.system, metric, value, run);
          add('rate', o.jobsPerS);
          add('cancelled', o.cancelled);
          add('p99Before', o.p99Before);
          add('p99During', o.p99During);
          add('maxDuring', o.maxDuring);
          add('missing', o.streamMissing);
          if (o.cancelled !== options.jobs)
            failures.push(`bulk-cancel · ${o.system}: ${o.cancelled} of ${options.jobs}`);
        } catch (err) {
          failures.push(`bulk-cancel · ${subject.name}: ${(err as Error).message}`);
        } finally {
          await subject.close().catch(() => undefined);
        }
      }
    });
  }
}
