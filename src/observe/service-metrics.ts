import { collectDefaultMetrics, type Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { DelayqService } from '../service/service.js';
import { JobMetrics } from './job-metrics.js';
import { registerJournalMetrics } from './journal-metrics.js';
import { StoreGauges } from './store-gauges.js';
import { TopicLabels } from './topic-labels.js';

/**
 * Registers every service series on `registry` (docs/metrics.md): transition counters and lateness
 * histograms from service.events, the journal's write lag (with a journal), store gauges read on scrape, and prom-client's process metrics (event
 * loop lag, heap, GC, CPU, file descriptors). Answers the function that stops listening.
 */
export function registerServiceMetrics(
  service: DelayqService,
  registry: Registry,
  options: Config['metrics'],
): () => void {
  const topics = new TopicLabels(options.topicLabelLimit);
  const stopJobs = new JobMetrics(registry, topics).listen(service.events);
  const stopJournal = service.journal.available
    ? registerJournalMetrics(registry, service.journal.operations())
    : undefined;
  new StoreGauges(registry, service, options.topicLabelLimit, options.statsCacheMs);
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  return () => {
    stopJobs();
    stopJournal?.();
  };
}
