import { DEFAULT_RETRY_POLICY, DEFAULTS } from '../config.js';
import type { NewJob } from '../core/job.js';

let counter = 0;

/** A valid NewJob with the configuration's defaults; override what the test is about. */
export function aJob(overrides: Partial<NewJob> & { delayMs?: number; now?: number } = {}): NewJob {
  const { delayMs, now, ...rest } = overrides;
  const base = now ?? Date.UTC(2026, 0, 1);
  counter++;
  return {
    id: `job-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 8)}`,
    topic: 'orders',
    tag: null,
    bizKey: null,
    body: JSON.stringify({ n: counter }),
    runAt: base + (delayMs ?? 0),
    priority: 0,
    ttrMs: DEFAULTS.jobs.ttrMs,
    ttlMs: null,
    retry: DEFAULT_RETRY_POLICY,
    ...rest,
  };
}
