/**
 * A test delivery (POST /v1/topics/{topic}/sink/test): one synthetic job handed to a binding's sink, as the
 * dispatcher would hand a due job, and the sink's answer. No job is stored; the target sees an ordinary
 * delivery whose id starts with `sink-test-`, so it can tell a test from a job.
 */
import type { EpochMs } from '../core/clock.js';
import { newJobId } from '../core/ids.js';
import type { Job } from '../core/job.js';
import { SINK_DEFAULTS } from '../config.js';
import type { Sink } from './sink.js';
import type { SinkConfig } from './sink-config.js';

export interface SinkTestResult {
  /** The sink's id for the synthetic job (`sink-test-…`). */
  jobId: string;
  ok: boolean;
  /** Why it failed, as a job's lastError would read; null when it was delivered. */
  reason: string | null;
  /** Whether a job's delivery would be tried again after this failure; null when it was delivered. */
  retryable: boolean | null;
  durationMs: number;
}

/** The job a test delivers: reserved now for `ttrMs`, first attempt, the given body (JSON text). */
export function testJob(topic: string, body: string, now: EpochMs, ttrMs: number): Job {
  return {
    id: `sink-test-${newJobId(now)}`,
    topic,
    tag: null,
    bizKey: null,
    body,
    state: 'reserved',
    runAt: now,
    priority: 0,
    ttrMs,
    ttlMs: null,
    retry: { maxAttempts: 1, backoff: { type: 'fixed', delayMs: 0 } },
    attempts: 1,
    lastError: null,
    createdAt: now,
    readyAt: now,
    reservedAt: now,
    finishedAt: null,
    deadlineAt: null,
  };
}

/** Builds the binding's sink, delivers `job` within the binding's timeout, closes the sink. */
export async function testDelivery(
  config: SinkConfig,
  job: Job,
  createSink: (config: SinkConfig) => Sink,
): Promise<SinkTestResult> {
  const timeoutMs = config.timeoutMs ?? SINK_DEFAULTS.timeoutMs;
  const startedAt = performance.now();
  let sink: Sink;
  try {
    sink = createSink(config);
  } catch (err) {
    const reason = `cannot build the sink: ${(err as Error).message}`;
    return { jobId: job.id, ok: false, reason, retryable: false, durationMs: 0 };
  }
  const attempt = new AbortController();
  const timer = setTimeout(() => attempt.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    const result = await sink.deliver(job, attempt.signal);
    const durationMs = Math.round(performance.now() - startedAt);
    return result.ok
      ? { jobId: job.id, ok: true, reason: null, retryable: null, durationMs }
      : { jobId: job.id, ok: false, reason: result.reason, retryable: result.retryable, durationMs };
  } finally {
    clearTimeout(timer);
    await sink.close().catch(() => undefined);
  }
}
