import { DEFAULT_RETRY_POLICY } from '../src/config.js';
import type { NewJob } from '../src/core/job.js';
import { cpus, totalmem } from 'node:os';
import { execSync } from 'node:child_process';

/** Percentile of a sorted array (nearest rank). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function summarize(values: number[]): { p50: number; p99: number; max: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    n: sorted.length,
  };
}

export function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** One line describing the machine, for every results table. */
export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  let redis = '';
  try {
    redis = execSync('redis-server --version', { encoding: 'utf8' }).split(' ')[2] ?? '';
  } catch {
    /* redis not installed */
  }
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}${redis ? `, Redis ${redis}` : ''}`;
}

export const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `work`, or an error once `ms` have passed: a measurement that hangs (a client waiting on a server that died)
 * is given up so the run goes on. The work itself is not stopped; its timer is cleared when it settles first.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end within ${Math.round(ms / 1000)} s (given up)`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A job for a store's pushMany in a probe: due at `runAt`, priority 0, a 30 s TTR, the default retry policy. */
export function probeJob(id: string, topic: string, body: string, runAt: number): NewJob {
  return {
    id,
    topic,
    tag: null,
    bizKey: null,
    body,
    runAt,
    priority: 0,
    ttrMs: 30_000,
    ttlMs: null,
    retry: DEFAULT_RETRY_POLICY,
  };
}
