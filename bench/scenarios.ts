// The core scenarios, each a function of one open Subject. They measure; run.ts repeats and reports.
import { sleep, summarize } from './lib.js';
import type { Subject } from './subject.js';

export const IN_FLIGHT = 100;
export const CONSUMER_CONCURRENCY = 100;
export const BULK_SIZE = 1000;
/** Due time of jobs that must stay pending during a scenario: 30 min, inside delayq's 1 h load horizon. */
export const FAR_MS = 30 * 60_000;

/** Runs `count` calls of `fn` with at most `inFlight` outstanding. */
export async function withInFlight(count: number, inFlight: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

export interface EnqueueResult {
  jobsPerS: number;
  bytesPerJob: number | undefined;
}

/**
 * `count` delayed pushes, 100 in flight (from this process, or from the subject's own client process); the
 * memory the system grew by, per pending job.
 */
export async function enqueue(subject: Subject, count: number, dueInMs = FAR_MS): Promise<EnqueueResult> {
  const before = await subject.memoryBytes();
  const dueAt = Date.now() + dueInMs;
  let seconds: number;
  if (subject.pushMany) seconds = await subject.pushMany(count, IN_FLIGHT, dueAt);
  else {
    const started = performance.now();
    await withInFlight(count, IN_FLIGHT, () => subject.push(dueAt));
    seconds = (performance.now() - started) / 1000;
  }
  const jobsPerS = count / seconds;
  await sleep(200); // let background writers (journal flush, WAL) settle before reading memory
  const after = await subject.memoryBytes();
  return { jobsPerS, bytesPerJob: before === undefined || after === undefined ? undefined : (after - before) / count };
}

/** `count` delayed jobs through the bulk API, one call of BULK_SIZE at a time. */
export async function enqueueBulk(subject: Subject, count: number): Promise<number> {
  if (!subject.pushBulk) throw new Error(`${subject.name} has no bulk push`);
  const dueAt = Date.now() + FAR_MS;
  const started = performance.now();
  for (let i = 0; i < count; i += BULK_SIZE) {
    await subject.pushBulk(Array.from({ length: Math.min(BULK_SIZE, count - i) }, () => dueAt));
  }
  return count / ((performance.now() - started) / 1000);
}

export interface LatenessResult {
  p50: number;
  p99: number;
  max: number;
  n: number;
  /** Lateness of every job, ms, sorted (for the chart). */
  samples: number[];
  /** Jobs never delivered within the deadline (should be 0). */
  missing: number;
  /** How far the producer fell behind its schedule at worst (pushes slower than the rate); ≪ lead is fine. */
  producerLagMs: number;
}

/**
 * A steady producer: `ratePerS` jobs per second for `durationMs`, each due `leadMs` after it is pushed
 * (delayq and BullMQ to the millisecond; beanstalkd rounds up to whole seconds and the job's own due time
 * is what its lateness is measured against). One consumer with 100 concurrency takes them; lateness is
 * the instant the consumer got the job minus the instant it was due.
 */
export async function lateness(
  subject: Subject,
  ratePerS: number,
  durationMs: number,
  leadMs = 1000,
): Promise<LatenessResult> {
  const total = Math.round((ratePerS * durationMs) / 1000);
  const samples: number[] = [];
  let producerLagMs = 0;
  const consumer = await subject.consume(CONSUMER_CONCURRENCY, (dueAt) => samples.push(Date.now() - dueAt));
  try {
    await sleep(100); // the consumer is connected and waiting
    const startedAt = Date.now();
    let produced = 0;
    while (produced < total) {
      producerLagMs = Math.max(producerLagMs, Date.now() - (startedAt + (produced * 1000) / ratePerS));
      const shouldHave = Math.min(total, Math.floor(((Date.now() - startedAt) * ratePerS) / 1000) + 1);
      const batch: number[] = [];
      for (; produced < shouldHave; produced++) batch.push(startedAt + (produced * 1000) / ratePerS + leadMs);
      await Promise.all(batch.map((dueAt) => subject.push(Math.round(dueAt))));
      await sleep(5);
    }
    const deadline = Date.now() + leadMs + subject.resolutionMs + 20_000;
    while (samples.length < total && Date.now() < deadline) await sleep(20);
  } finally {
    await consumer.stop();
  }
  const stats = summarize(samples);
  return { ...stats, samples: [...samples].sort((a, b) => a - b), missing: total - stats.n, producerLagMs };
}

export interface BurstResult {
  jobsPerS: number;
  lastLateMs: number;
  missing: number;
  /** How late the consumer started because pushing took longer than the lead (0 normally). */
  overrunMs: number;
}

/**
 * `count` jobs due at the same instant, pushed beforehand (bulk API where there is one), then drained by
 * one consumer process with 100 concurrency. Rate counts from the first due instant (or the consumer's
 * start, if pushing overran the lead) to the last delivery.
 */
export async function burst(subject: Subject, count: number, leadMs: number): Promise<BurstResult> {
  const dueAt = Date.now() + leadMs;
  if (subject.pushBulk) {
    for (let i = 0; i < count; i += BULK_SIZE)
      await subject.pushBulk(Array.from({ length: Math.min(BULK_SIZE, count - i) }, () => dueAt));
  } else {
    await withInFlight(count, IN_FLIGHT, () => subject.push(dueAt));
  }
  // If pushing overran the lead (a loaded machine), the drain is timed from when the consumer starts.
  const overrunMs = Math.max(0, Date.now() - dueAt);
  const consumerStartedAt = Date.now();
  let delivered = 0;
  let firstDue = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  let lastLate = 0;
  const consumer = await subject.consume(CONSUMER_CONCURRENCY, (due) => {
    const now = Date.now();
    delivered++;
    firstDue = Math.min(firstDue, due);
    lastAt = now;
    lastLate = Math.max(lastLate, now - due);
  });
  try {
    const deadline = dueAt + subject.resolutionMs + 120_000;
    while (delivered < count && Date.now() < deadline) await sleep(20);
  } finally {
    await consumer.stop();
  }
  const drainMs = Math.max(1, lastAt - Math.max(firstDue, consumerStartedAt));
  return { jobsPerS: delivered / (drainMs / 1000), lastLateMs: lastLate, missing: count - delivered, overrunMs };
}

/** Fills the system with `count` jobs due FAR_MS from now (bulk where possible), for the pending scenario. */
export async function preload(subject: Subject, count: number): Promise<void> {
  const dueAt = Date.now() + FAR_MS;
  if (subject.pushBulk) {
    for (let i = 0; i < count; i += BULK_SIZE)
      await subject.pushBulk(Array.from({ length: Math.min(BULK_SIZE, count - i) }, () => dueAt));
  } else {
    await withInFlight(count, IN_FLIGHT, () => subject.push(dueAt));
  }
}
