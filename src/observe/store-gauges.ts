import { Gauge, type Registry } from 'prom-client';
import { JOB_STATES, type TopicStats } from '../core/job.js';
import type { DelayqService } from '../service/service.js';
import { OTHER_TOPIC } from './topic-labels.js';

/**
 * Gauges read from the store on scrape, cached `cacheMs` so frequent scrapers cost one stats call per
 * window (the stores keep counters per topic and state: stats never scans jobs). They describe the whole
 * store, so every instance on it exports the same values: a query takes them once with `max by (…)`, never
 * `sum` over instances (docs/metrics.md). For that, their topic label depends on the store alone: the first
 * `topicLimit` topic names in sort order keep their name, the others are `other`.
 *  - delayq_jobs{state,topic}; delayq_next_due_timestamp_seconds{topic} (earliest delayed runAt);
 *  - delayq_topic_paused{topic} when the store reports paused topics;
 *  - delayq_journal_pending_writes when a journal backs the store;
 *  - delayq_store_up: 1 when the last stats read succeeded.
 */
export class StoreGauges {
  private cached: { at: number; stats: TopicStats[] } | undefined;
  private reading: Promise<TopicStats[]> | undefined;
  private up = 1;
  private readonly service: DelayqService;
  private readonly topicLimit: number;
  private readonly cacheMs: number;
  /** The topics that keep their name in the label, from the stats last read. */
  private named = new Set<string>();

  constructor(registry: Registry, service: DelayqService, topicLimit: number, cacheMs: number) {
    this.service = service;
    this.topicLimit = topicLimit;
    this.cacheMs = cacheMs;
    const registers = [registry];
    // collect() runs with `this` bound to its gauge: the store reads are reached through these closures.
    const stats = () => this.stats();
    const countsByLabel = () => this.countsByLabel();
    const label = (topic: string) => this.label(topic);
    const up = () => this.up;
    new Gauge({
      name: 'delayq_jobs',
      help: 'Jobs per state and topic (store stats, cached briefly)',
      labelNames: ['state', 'topic'],
      registers,
      async collect() {
        this.reset();
        for (const [topic, counts] of await countsByLabel()) {
          for (const state of JOB_STATES) this.set({ state, topic }, counts[state] ?? 0);
        }
      },
    });
    new Gauge({
      name: 'delayq_next_due_timestamp_seconds',
      help: 'Earliest due time (runAt) of a delayed job in the topic, Unix seconds',
      labelNames: ['topic'],
      registers,
      async collect() {
        this.reset();
        const next = new Map<string, number>();
        for (const s of await stats()) {
          if (s.nextDueAt === null) continue;
          const topic = label(s.topic);
          next.set(topic, Math.min(next.get(topic) ?? Number.POSITIVE_INFINITY, s.nextDueAt));
        }
        for (const [topic, at] of next) this.set({ topic }, at / 1000);
      },
    });
    new Gauge({
      name: 'delayq_topic_paused',
      help: '1 while the topic is paused (reserve and delivery skip it)',
      labelNames: ['topic'],
      registers,
      async collect() {
        this.reset();
        for (const s of await stats()) {
          const paused = (s as TopicStats & { paused?: boolean }).paused;
          if (paused !== undefined && label(s.topic) !== OTHER_TOPIC) this.set({ topic: s.topic }, paused ? 1 : 0);
        }
      },
    });
    new Gauge({
      name: 'delayq_store_up',
      help: '1 when the last read of the store stats succeeded, 0 when the store was unreachable',
      registers,
      async collect() {
        await stats();
        this.set(up());
      },
    });
    if (service.journal.available) {
      new Gauge({
        name: 'delayq_journal_pending_writes',
        help: 'Journal entries queued and not yet committed (the journal write lag, in entries)',
        registers,
        collect() {
          this.set(service.journal.operations().status().pendingJournalWrites);
        },
      });
    }
  }

  /** The store's stats, at most `cacheMs` old; an unreachable store answers the last ones (store_up = 0). */
  private async stats(): Promise<TopicStats[]> {
    const now = performance.now();
    if (this.cached && now - this.cached.at < this.cacheMs) return this.cached.stats;
    this.reading ??= this.service.topics
      .stats()
      .then((stats) => {
        this.cached = { at: performance.now(), stats };
        this.named = new Set(
          stats
            .map((s) => s.topic)
            .sort()
            .slice(0, this.topicLimit),
        );
        this.up = 1;
        return stats;
      })
      .catch(() => {
        this.up = 0;
        return this.cached?.stats ?? [];
      })
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  private label(topic: string): string {
    return this.named.has(topic) ? topic : OTHER_TOPIC;
  }

  private async countsByLabel(): Promise<Map<string, Record<string, number>>> {
    const byLabel = new Map<string, Record<string, number>>();
    for (const s of await this.stats()) {
      const topic = this.label(s.topic);
      const sum = byLabel.get(topic) ?? {};
      for (const state of JOB_STATES) sum[state] = (sum[state] ?? 0) + s.counts[state];
      byLabel.set(topic, sum);
    }
    return byLabel;
  }
}
