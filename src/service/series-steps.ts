/** The slots a series read found, summed into the steps and the total the API answers (docs/series.md). */
import type { EpochMs } from '../core/clock.js';
import { LATENESS_BUCKET_COUNT, latenessQuantile } from '../core/lateness.js';
import {
  BACKLOG_STATES,
  SERIES_EVENTS,
  backlogField,
  latenessField,
  type BacklogState,
  type SeriesEvent,
  type SeriesSlot,
} from '../store/job-series.js';
import type { SeriesRange } from './series-query.js';

export interface LatenessSummary {
  /** Jobs reserved (each reservation's lateness counted once). */
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export interface SeriesFigures {
  counts: Record<SeriesEvent, number>;
  lateness: LatenessSummary;
}

export interface SeriesStep extends SeriesFigures {
  at: EpochMs;
  /** The last backlog sample taken in the step; null when none was. */
  backlog: Record<BacklogState, number> | null;
}

export interface TopicSeries {
  topic: string;
  total: SeriesFigures;
  steps: SeriesStep[];
}

/** Counts and lateness buckets being summed. */
class Sum {
  readonly counts = Object.fromEntries(SERIES_EVENTS.map((e) => [e, 0])) as Record<SeriesEvent, number>;
  readonly buckets: number[] = new Array<number>(LATENESS_BUCKET_COUNT).fill(0);

  add(fields: Readonly<Record<string, number>>): void {
    for (const event of SERIES_EVENTS) this.counts[event] += fields[event] ?? 0;
    for (let i = 0; i < LATENESS_BUCKET_COUNT; i++) this.buckets[i]! += fields[latenessField(i)] ?? 0;
  }

  figures(): SeriesFigures {
    return {
      counts: { ...this.counts },
      lateness: {
        count: this.buckets.reduce((sum, n) => sum + n, 0),
        p50Ms: latenessQuantile(this.buckets, 0.5),
        p99Ms: latenessQuantile(this.buckets, 0.99),
      },
    };
  }
}

/** Each topic's steps over the range (every step present, zero when nothing happened) and its total. */
export function seriesSteps(
  range: SeriesRange,
  slots: readonly SeriesSlot[],
  topics: readonly string[],
): TopicSeries[] {
  const steps = (range.to - range.from) / range.stepMs;
  const byTopic = new Map(topics.map((topic) => [topic, [] as SeriesSlot[]]));
  for (const slot of slots) byTopic.get(slot.topic)?.push(slot);
  return topics.map((topic) => {
    const total = new Sum();
    const sums = Array.from({ length: steps }, () => new Sum());
    const backlog: { at: EpochMs; counts: Record<BacklogState, number> }[] = new Array(steps);
    for (const slot of byTopic.get(topic)!) {
      const i = Math.floor((slot.at - range.from) / range.stepMs);
      if (i < 0 || i >= steps) continue;
      sums[i]!.add(slot.fields);
      total.add(slot.fields);
      if (slot.fields[backlogField('delayed')] !== undefined && !(backlog[i] && backlog[i].at > slot.at)) {
        const counts = Object.fromEntries(
          BACKLOG_STATES.map((state) => [state, slot.fields[backlogField(state)] ?? 0]),
        ) as Record<BacklogState, number>;
        backlog[i] = { at: slot.at, counts };
      }
    }
    return {
      topic,
      total: total.figures(),
      steps: sums.map((sum, i) => ({
        at: range.from + i * range.stepMs,
        ...sum.figures(),
        backlog: backlog[i]?.counts ?? null,
      })),
    };
  });
}
