import { Histogram, type Registry } from 'prom-client';
import type { JournalOperations } from '../journal/journal.js';

/** Journal write lag buckets, seconds: group commits take milliseconds; seconds mean the journal is struggling. */
const JOURNAL_LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * delayq_journal_write_lag_seconds{mode}: for each job row the journal committed, the time from the store
 * write to the commit (docs/metrics.md). mode=durable: the caller waited for it; async: journaled behind
 * the store (reserve, retry, release). Answers the unsubscribe function.
 */
export function registerJournalMetrics(registry: Registry, journal: JournalOperations): () => void {
  const lag = new Histogram({
    name: 'delayq_journal_write_lag_seconds',
    help: 'Time from a store write to its journal row committed, by mode (durable: awaited; async: journaled behind)',
    labelNames: ['mode'],
    buckets: JOURNAL_LAG_BUCKETS,
    registers: [registry],
  });
  const durable = lag.labels({ mode: 'durable' });
  const async = lag.labels({ mode: 'async' });
  return journal.observeCommits((lagMs, isDurable) => (isDurable ? durable : async).observe(lagMs / 1000));
}
