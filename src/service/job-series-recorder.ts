/**
 * Feeds the store-wide series (store/job-series.ts, docs/series.md) from this process: the service's job
 * events are counted in memory per topic and ten-second slot, with the lateness of each reserved job in its
 * bucket, and written to the store together once per SERIES_FLUSH_MS (one store call whatever the traffic). With
 * `sampleBacklog`, it also offers at each slot to sample the per-topic counts; the store lets one process
 * per slot do it.
 */
import type { Clock } from '../core/clock.js';
import { LATENESS_BUCKET_COUNT, latenessBucket } from '../core/lateness.js';
import { SERIES_EVENTS, SERIES_TIERS, latenessField, slotStart, type SeriesCounts } from '../store/job-series.js';
import type { Store } from '../store/store.js';
import { UNKNOWN_TOPIC, type ServiceEvents, type ServiceJobEvent } from './service-events.js';

/** How long counts wait in memory before they go to the store together. */
export const SERIES_FLUSH_MS = 1000;
/** How long after a slot starts its backlog is sampled (after the slot's first promotions settled). */
const SAMPLE_OFFSET_MS = 500;

const FINE_SLOT_MS = SERIES_TIERS[0]!.slotMs;
/** Where each figure sits in a topic's count array: the transitions, then the lateness buckets. */
const EVENT_INDEX = new Map<string, number>(SERIES_EVENTS.map((event, i) => [event, i]));
const RESERVE = EVENT_INDEX.get('reserve')!;
const FIRST_BUCKET = SERIES_EVENTS.length;
const FIELDS = [
  ...SERIES_EVENTS,
  ...Array.from({ length: LATENESS_BUCKET_COUNT }, (_, i) => latenessField(i)),
] as const;

export interface JobSeriesRecorderOptions {
  /** Offer to sample the backlog each slot (processes that run the timer). */
  sampleBacklog: boolean;
  /** A write or a sample failed: its counts are lost (never tried again, as a retry could count twice). */
  onError(err: unknown): void;
}

export class JobSeriesRecorder {
  private readonly events: ServiceEvents;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly options: JobSeriesRecorderOptions;
  /** Counts not yet written, by slot start and topic: one array of FIELDS each (no string built per event). */
  private pending = new Map<number, Map<string, Float64Array>>();
  private flushTimer: NodeJS.Timeout | undefined;
  private sampleTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** The backlog sample in progress, which stop waits for. */
  private sampling: Promise<void> = Promise.resolve();
  private running = false;
  private readonly onJob = (e: ServiceJobEvent): void => this.count(e);

  constructor(events: ServiceEvents, store: Store, clock: Clock, options: JobSeriesRecorderOptions) {
    this.events = events;
    this.store = store;
    this.clock = clock;
    this.options = options;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.events.on('job', this.onJob);
    if (this.options.sampleBacklog) this.armSample();
  }

  /** Stops counting and writes what is pending. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.events.off('job', this.onJob);
    clearTimeout(this.sampleTimer);
    this.sampleTimer = undefined;
    await this.sampling;
    await this.flush();
  }

  /** Writes the pending counts now (a read of the series first writes this process's own). */
  flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.size > 0) {
      const items: SeriesCounts[] = [];
      for (const [at, topics] of this.pending) {
        for (const [topic, values] of topics) {
          const counts: Record<string, number> = {};
          values.forEach((n, i) => {
            if (n > 0) counts[FIELDS[i]!] = n;
          });
          items.push({ topic, at, counts });
        }
      }
      this.pending = new Map();
      const now = this.clock.now();
      this.writing = this.writing.then(() =>
        this.store.series.add(items, now).catch((err: unknown) => this.options.onError(err)),
      );
    }
    return this.writing;
  }

  private count(e: ServiceJobEvent): void {
    const index = EVENT_INDEX.get(e.event);
    if (index === undefined || e.topic === UNKNOWN_TOPIC) return;
    const at = slotStart(e.at, FINE_SLOT_MS);
    let topics = this.pending.get(at);
    if (!topics) this.pending.set(at, (topics = new Map()));
    let values = topics.get(e.topic);
    if (!values) topics.set(e.topic, (values = new Float64Array(FIELDS.length)));
    values[index]! += e.count ?? 1;
    // A job reserved before its due time (reserve took it early) is not late.
    if (index === RESERVE && e.dueAt !== undefined)
      values[FIRST_BUCKET + latenessBucket(Math.max(0, e.at - e.dueAt))]! += 1;
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => void this.flush(), SERIES_FLUSH_MS);
      this.flushTimer.unref();
    }
  }

  /**
   * Sleeps until SAMPLE_OFFSET_MS into the next slot of the service clock, samples, and sleeps again. A
   * plain timer, not the clock's: the due timer's timers are the clock's alone (tests read them).
   */
  private armSample(): void {
    const now = this.clock.now();
    const delayMs = slotStart(now, FINE_SLOT_MS) + FINE_SLOT_MS + SAMPLE_OFFSET_MS - now;
    this.sampleTimer = setTimeout(() => {
      this.sampling = this.sample().finally(() => {
        if (this.running) this.armSample();
      });
    }, delayMs);
    this.sampleTimer.unref();
  }

  /** Samples the per-topic counts into this slot, when the store lets this process do it. */
  async sample(): Promise<void> {
    const now = this.clock.now();
    try {
      if (!(await this.store.series.claimBacklogSample(now))) return;
      const stats = await this.store.stats();
      await this.store.series.setBacklog(
        now,
        stats.map(({ topic, counts }) => ({ topic, counts })),
        now,
      );
    } catch (err) {
      this.options.onError(err);
    }
  }
}
